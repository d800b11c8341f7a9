import { expect, test } from 'vitest';
import { BurstWriter, GROUP_SIZE } from '../transports/stdio.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('the first write of a turn goes out at once, the rest in groups, the remainder at the end of the turn', async () => {
  const writes: string[] = [];
  const writer = new BurstWriter((text) => (writes.push(text), true), () => {});
  writer.write('a');
  expect(writes).toEqual(['a']);
  for (let i = 0; i < GROUP_SIZE + 2; i++) writer.write(String(i));
  expect(writes).toEqual(['a', '01234567']);
  await nextTurn();
  expect(writes).toEqual(['a', '01234567', '89']);
  writer.write('next turn');
  expect(writes.at(-1)).toBe('next turn');
});

test('flush writes what is held now, and a full sink is reported', () => {
  const writes: string[] = [];
  let full = 0;
  const writer = new BurstWriter((text) => (writes.push(text), false), () => (full += 1));
  writer.write('a');
  writer.write('b');
  writer.write('c');
  writer.flush();
  expect(writes).toEqual(['a', 'bc']);
  expect(full).toBe(2);
});
