// CPU time a process has used (user + system, from /proc/<pid>/stat): per-request cost that other load on the machine barely moves.
import { readFileSync } from "node:fs"
import { descendantsOf } from "../../test/support/ProcessTree.ts"

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

/** Clock ticks one process used itself (utime + stime) and its reaped children used (cutime + cstime). */
const ticksWithReaped = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
}

/**
 * CPU seconds of a process and everything under it: its own, its live descendants' (a warm runner and the runs it
 * forked), and every child any of them reaped (a cold run's processes, once they ended). Each process counts once:
 * alive, it counts itself; reaped, its parent's children's time holds it.
 */
export const treeCpuSeconds = async (pid: number): Promise<number> => {
  let ticks = 0
  for (const id of [pid, ...(await descendantsOf(pid)).map((p) => p.pid)]) {
    try {
      ticks += ticksWithReaped(id)
    } catch {
      // Ended between the listing and the read: its parent's reaped time holds it now or soon.
    }
  }
  return ticks / TICKS_PER_SECOND
}
