import { count, duration, esc } from './html.ts';
import { LAG_HISTORY_MS, type LagSample } from './fleet-recorder.ts';

/** Size of one partition's chart, in CSS pixels. */
const WIDTH = 160;
const HEIGHT = 48;
/** Room under the lines for the time axis. */
const AXIS = 10;
/** Smallest full scale of each series, so that a lag of a few events or under a second stays a ripple. */
const MIN_SCALE_EVENTS = 10;
const MIN_SCALE_SECONDS = 10;
/** Shortest span drawn, so that the first samples after a start are not stretched over the whole width. 1 min. */
const MIN_SPAN_MS = 60_000;

/**
 * A partition's lag over the last 15 minutes as an inline SVG: events as a filled area, seconds as a dashed
 * line, each scaled to its own maximum (at least 10 events, 10 s; the maxima are printed in the corner).
 * The x axis is wall time, so a gap in the samples (hub or storage down) shows as a gap; it spans the
 * history kept, from 1 minute after a start up to 15.
 */
export function lagChart(samples: readonly LagSample[], now: number, label: string): string {
  const inWindow = samples.filter((s) => s.at >= now - LAG_HISTORY_MS);
  const span = Math.min(LAG_HISTORY_MS, Math.max(MIN_SPAN_MS, now - (inWindow[0]?.at ?? now)));
  const from = now - span;
  const plotH = HEIGHT - AXIS;
  const x = (at: number) => (((at - from) / span) * WIDTH).toFixed(1);
  const maxEvents = Math.max(0, ...inWindow.map((s) => s.lagEvents ?? 0));
  const maxSeconds = Math.max(0, ...inWindow.map((s) => s.lagSeconds ?? 0));
  const scaleEvents = Math.max(MIN_SCALE_EVENTS, maxEvents);
  const scaleSeconds = Math.max(MIN_SCALE_SECONDS, maxSeconds);
  const y = (v: number, max: number) => (plotH - 1 - (v / max) * (plotH - 4)).toFixed(1);
  const events = inWindow.filter((s) => s.lagEvents !== undefined);
  const seconds = inWindow.filter((s) => s.lagSeconds !== undefined);
  const base = plotH - 1;
  let area = '';
  if (events.length > 0) {
    // A single sample is drawn as a short step so that it is visible.
    const drawn =
      events.length === 1 ? [events[0]!, { ...events[0]!, at: Math.min(now, events[0]!.at + 20_000) }] : events;
    const pts = drawn.map((s) => `${x(s.at)},${y(s.lagEvents!, scaleEvents)}`).join(' ');
    area =
      `<polygon points="${x(drawn[0]!.at)},${base} ${pts} ${x(drawn[drawn.length - 1]!.at)},${base}" ` +
      'fill="#2f6fdf33" stroke="#2f6fdf" stroke-width="1.5"/>';
  }
  const line =
    seconds.length > 1
      ? `<polyline points="${seconds.map((s) => `${x(s.at)},${y(s.lagSeconds!, scaleSeconds)}`).join(' ')}" ` +
        'fill="none" stroke="#d9731a" stroke-width="1.5" stroke-dasharray="4 2"/>'
      : '';
  const ticks = [0, 0.5, 1]
    .map((f) => {
      const tx = ((1 - f) * WIDTH).toFixed(1);
      const anchor = f === 0 ? 'end' : f === 1 ? 'start' : 'middle';
      const text = f === 0 ? 'now' : `-${spanLabel(span * f)}`;
      return (
        `<line x1="${tx}" y1="${plotH}" x2="${tx}" y2="${plotH + 2}" stroke="#8a94a6"/>` +
        `<text x="${tx}" y="${HEIGHT - 1}" font-size="8" fill="#5b6577" text-anchor="${anchor}">${esc(text)}</text>`
      );
    })
    .join('');
  const title =
    `${label}: lag over the last ${duration(span / 1000)}; max ${count(maxEvents)} events (area), ` +
    `max ${duration(maxSeconds)} (dashed)`;
  const maxima =
    events.length === 0
      ? ''
      : `<text x="3" y="9" font-size="8" fill="#1d2430">` +
        `max ${esc(count(maxEvents))} ev${seconds.length > 1 ? ` · ${esc(duration(maxSeconds))}` : ''}</text>`;
  const empty =
    events.length === 0
      ? `<text x="${WIDTH / 2}" y="${plotH / 2 + 3}" font-size="9" fill="#8a94a6" text-anchor="middle">no samples ` +
        `yet</text>`
      : '';
  return (
    `<svg class="lag-chart" role="img" aria-label="${esc(title)}" width="${WIDTH}" height="${HEIGHT}" ` +
    `viewBox="0 0 ${WIDTH} ${HEIGHT}" data-samples="${inWindow.length}"><title>${esc(title)}</title>` +
    `<rect x="0" y="0" width="${WIDTH}" height="${plotH}" fill="#f7f9fc"/>` +
    `<line x1="0" y1="${plotH - 0.5}" x2="${WIDTH}" y2="${plotH - 0.5}" stroke="#c3cad6"/>` +
    `${area}${line}${maxima}${empty}${ticks}</svg>`
  );
}

/** `30s`, `7m30s`, `15m`: short enough for an axis label. */
function spanLabel(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  return s % 60 === 0 ? `${s / 60}m` : `${Math.floor(s / 60)}m${s % 60}s`;
}
