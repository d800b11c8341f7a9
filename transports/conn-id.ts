/**
 * Connection ids minted by a network transport: unguessable, because an id
 * is what an elicitation answer is bound to.
 */
import { randomId } from '../lib/random-id.js';

export function mintConnId(prefix = 'conn'): string {
  return randomId(`${prefix}-`);
}
