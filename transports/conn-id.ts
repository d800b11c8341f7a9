/**
 * Connection ids minted by a network transport: unguessable, because an id
 * is what an elicitation answer is bound to.
 */
import { randomId } from '../lib/random-id.js';

/** An unguessable connection id (`<prefix>-<random>`), for a transport of your own. */
export function mintConnId(prefix = 'conn'): string {
  return randomId(`${prefix}-`);
}
