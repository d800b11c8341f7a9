/**
 * Connection ids minted by a network transport: unguessable, because an id
 * is what an elicitation answer is bound to.
 */
import { randomBytes } from 'node:crypto';

export function mintConnId(prefix = 'conn'): string {
  return `${prefix}-${randomBytes(18).toString('base64url')}`;
}
