/**
 * What the kernel says a process cost: CPU time (utime + stime from
 * /proc/<pid>/stat, in clock ticks) and memory (VmRSS now, VmHWM the peak,
 * from /proc/<pid>/status, in KiB). Linux only; elsewhere every reading is
 * undefined and the report says "n/a".
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parens: fields are counted after the LAST ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5); fields[0] here is field 3.
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / clockTicksPerSecond();
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
