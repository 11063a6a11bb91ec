// CPU time a process has used (user + system, from /proc/<pid>/stat): per-request cost that other load on the machine barely moves.
import { readFileSync } from "node:fs"

/** Clock ticks per second of /proc's utime/stime on Linux (USER_HZ, 100 on every mainstream kernel). */
const TICKS_PER_SECOND = 100

/** User + system CPU seconds the process has used so far. */
export const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  return (utime + stime) / TICKS_PER_SECOND
}

/** Runs `work` and returns the CPU seconds the process used meanwhile, with the work's result. */
export const measureCpu = async <A>(pid: number, work: () => Promise<A>): Promise<{ cpuSeconds: number; result: A }> => {
  const before = cpuSeconds(pid)
  const result = await work()
  return { cpuSeconds: cpuSeconds(pid) - before, result }
}
