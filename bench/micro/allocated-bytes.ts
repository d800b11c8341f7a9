/**
 * Bytes allocated while `run` runs, garbage included (V8's sampling heap
 * profiler keeping collected objects): what drives GC cost, which a heap
 * snapshot after the fact would miss.
 */
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

function sum(node: ProfileNode): number {
  let bytes = node.selfSize;
  for (const child of node.children) bytes += sum(child);
  return bytes;
}

export async function allocatedBytes(run: () => Promise<void>): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await run();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    return sum(profile.head as unknown as ProfileNode);
  } finally {
    session.disconnect();
  }
}
