/**
 * The audit of claims: every `put-token` answered on `$cbs` and every link detached because the claim it
 * relied on expired, so tests can prove that token renewals kept links alive.
 */
import type { ClaimAudit, ExpiredLinkRecord, PutTokenRecord } from '../types.ts';

export class ClaimAuditLog implements ClaimAudit {
  readonly puts: PutTokenRecord[] = [];
  readonly expiredLinks: ExpiredLinkRecord[] = [];

  putsFor(audience: string): PutTokenRecord[] {
    return this.puts.filter((p) => p.audience === audience);
  }

  clear(): void {
    this.puts.length = 0;
    this.expiredLinks.length = 0;
  }
}
