import { esc } from './html.ts';

/** Colours given to owners in order of first appearance; free partitions are grey. */
const PALETTE = ['#2f6fdf', '#d9731a', '#1f9d6b', '#9b4dca', '#c23a5b', '#0e8fa3', '#7a8a18', '#8d5a2b'];
const FREE = '#c3cad6';
const CELL = 44;
const GAP = 6;

export interface MapCell {
  readonly partitionId: string;
  /** Owner id, `''` when free. */
  readonly owner: string;
}

/** Owner id → colour, stable for one page (owners sorted, so the same fleet gets the same colours). */
export function ownerColours(cells: readonly MapCell[]): Map<string, string> {
  const owners = [...new Set(cells.map((c) => c.owner).filter((o) => o !== ''))].sort();
  return new Map(owners.map((o, i) => [o, PALETTE[i % PALETTE.length]!]));
}

/** A grid of partitions coloured by owner, as inline SVG, with `colours` from `ownerColours`. */
export function ownershipMap(cells: readonly MapCell[], colours: ReadonlyMap<string, string>): string {
  const perRow = Math.max(1, Math.min(cells.length, 16));
  const rows = Math.ceil(cells.length / perRow);
  const w = perRow * (CELL + GAP) - GAP;
  const h = Math.max(1, rows) * (CELL + GAP) - GAP;
  const rects = cells
    .map((c, i) => {
      const x = (i % perRow) * (CELL + GAP);
      const y = Math.floor(i / perRow) * (CELL + GAP);
      const fill = colours.get(c.owner) ?? FREE;
      const who = c.owner === '' ? 'free (no lease held)' : `owned by ${c.owner}`;
      return (
        `<g><title>partition ${esc(c.partitionId)}: ${esc(who)}</title>` +
        `<rect x="${x}" y="${y}" width="${CELL}" height="${CELL}" rx="5" fill="${fill}"/>` +
        `<text x="${x + CELL / 2}" y="${y + CELL / 2 + 5}" font-size="14" font-weight="600" fill="#fff" ` +
        `text-anchor="middle">${esc(c.partitionId)}</text></g>`
      );
    })
    .join('');
  return (
    `<svg class="ownership-map" role="img" aria-label="ownership map" width="${w}" height="${h}" ` +
    `viewBox="0 0 ${w} ${h}" style="max-width:100%;height:auto">${rects}</svg>`
  );
}
