import { describe, expect, test } from 'vitest';
import { Admission, IDLE_KEYS_KEPT } from '../../streams/state/admission.js';

/** The count tables' sizes (private: read here to prove they stay bounded). */
function tableSizes(admission: Admission): { connections: number; peers: number } {
  const inside = admission as unknown as { perConnection: Map<unknown, number>; perPeer: Map<unknown, number> };
  return { connections: inside.perConnection.size, peers: inside.perPeer.size };
}

describe('Admission', () => {
  test('the bounds hold after a connection has been idle at zero (its entry kept, not reset)', () => {
    const admission = new Admission(10, 2, 3);
    expect(admission.tryAcquire('c1', 'p1')).toBe(true);
    admission.release('c1', 'p1');
    expect(admission.inFlight('c1')).toBe(0);
    expect(admission.tryAcquire('c1', 'p1')).toBe(true);
    expect(admission.tryAcquire('c1', 'p1')).toBe(true);
    expect(admission.tryAcquire('c1', 'p1')).toBe(false);
    expect(admission.inFlight('c1')).toBe(2);
    expect(admission.inFlight()).toBe(2);
  });

  test('ever new connection ids and peers leave at most IDLE_KEYS_KEPT idle entries behind', () => {
    const admission = new Admission(10, 2, 3);
    for (let i = 0; i < IDLE_KEYS_KEPT * 5; i++) {
      expect(admission.tryAcquire(`conn-${i}`, `peer-${i}`)).toBe(true);
      admission.release(`conn-${i}`, `peer-${i}`);
    }
    const sizes = tableSizes(admission);
    expect(sizes.connections).toBeLessThanOrEqual(IDLE_KEYS_KEPT + 1);
    expect(sizes.peers).toBeLessThanOrEqual(IDLE_KEYS_KEPT + 1);
    expect(admission.inFlight()).toBe(0);
  });
});
