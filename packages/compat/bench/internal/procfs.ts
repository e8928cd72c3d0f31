// A process's CPU time and memory read from Linux's /proc, the same way for a Node and a Python
// operator: user+system CPU from /proc/PID/stat, resident and peak resident memory (VmRSS,
// VmHWM) from /proc/PID/status. The benchmark measures the operators from outside, so neither
// needs instrumenting and the figures are comparable.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) the process used so far, in milliseconds. */
export const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) is in parentheses and may contain spaces: split after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond;
};

const statusKiB = (pid: number, key: string): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const line = status.split("\n").find((l) => l.startsWith(`${key}:`));
  return line === undefined ? Number.NaN : Number(line.replace(/[^0-9]/g, ""));
};

/** Resident memory now, in MiB. */
export const rssMiB = (pid: number): number => statusKiB(pid, "VmRSS") / 1024;

/** The highest resident memory since the process started, in MiB. */
export const peakRssMiB = (pid: number): number => statusKiB(pid, "VmHWM") / 1024;

/** The system's 1-minute load average and core count, kept with the figures. */
export const load = (loadavg: ReadonlyArray<number>, cores: number) => ({
  loadavg1: Math.round((loadavg[0] ?? 0) * 100) / 100,
  cores,
});
