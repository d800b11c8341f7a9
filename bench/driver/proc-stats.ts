/**
 * What the kernel says a process cost: CPU time (utime + stime from
 * /proc/<pid>/stat, in clock ticks), the share of it spent on threads other
 * than the main one (/proc/<pid>/task/<tid>/stat), and memory (VmRSS now,
 * VmHWM the peak, from /proc/<pid>/status, in KiB). Linux only; elsewhere
 * every reading is undefined and the report says "n/a".
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime, in seconds, of a stat(5) line (a process's or one thread's). */
function statSeconds(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // The command name may hold spaces and parens: fields are counted after the LAST ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5); fields[0] here is field 3.
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond();
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    return statSeconds(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by the process's threads other than the main one.
 * In a Node server that answers from JavaScript these are V8's helpers:
 * optimizing compilation and the parallel and concurrent parts of garbage
 * collection (libuv's pool runs only file-system and DNS work). A server that
 * is still compiling its hot code shows it here, not on the main thread. A
 * thread that ended before the reading is not counted (its time stays in
 * cpuSeconds); V8's helpers live as long as the process.
 */
export function helperCpuSeconds(pid: number): number | undefined {
  try {
    let seconds = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (tid === String(pid)) continue;
      try {
        seconds += statSeconds(`/proc/${pid}/task/${tid}/stat`);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return seconds;
  } catch {
    return undefined;
  }
}

function statusKb(pid: number, key: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

export const rssKb = (pid: number): number | undefined => statusKb(pid, 'VmRSS');
export const peakRssKb = (pid: number): number | undefined => statusKb(pid, 'VmHWM');
