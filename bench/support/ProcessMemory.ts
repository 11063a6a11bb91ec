// Samples a process's resident set size from /proc while a benchmark runs, keeping the peak.
import { readFile } from "node:fs/promises"
import { descendantsOf } from "../../test/support/ProcessTree.ts"

const MB = 1024 * 1024

/** Current RSS in bytes, or null once the process is gone. */
export const rssBytes = async (pid: number): Promise<number | null> => {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => null)
  const match = status === null ? null : /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)
  return match === null ? null : Number(match[1]) * 1024
}

export interface RssSampler {
  /** Peak RSS seen so far, in MB. */
  peakMb(): number
  stop(): Promise<number>
}

/** Samples every `intervalMs` until stopped; stop() resolves the peak in MB. */
export const sampleRss = (pid: number, intervalMs = 100): RssSampler => {
  let peak = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const rss = await rssBytes(pid)
      if (rss !== null && rss > peak) peak = rss
      await new Promise((r) => setTimeout(r, intervalMs))
    }
  })()
  return {
    peakMb: () => peak / MB,
    stop: async () => {
      running = false
      await loop
      return peak / MB
    }
  }
}

/** Proportional set size in bytes (shared pages split among the processes sharing them), or null once gone. */
export const pssBytes = async (pid: number): Promise<number | null> => {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => null)
  const match = rollup === null ? null : /^Pss:\s+(\d+)\s+kB$/m.exec(rollup)
  return match === null ? null : Number(match[1]) * 1024
}

/**
 * Memory of a process and everything under it, in MB: RSS summed (counts pages that forked children share with their
 * parent once per process) and PSS summed (counts each page once in all: what the tree really holds).
 */
export const treeMemoryMb = async (pid: number): Promise<{ readonly rss: number; readonly pss: number }> => {
  let rss = 0
  let pss = 0
  for (const id of [pid, ...(await descendantsOf(pid)).map((p) => p.pid)]) {
    rss += (await rssBytes(id)) ?? 0
    pss += (await pssBytes(id)) ?? 0
  }
  return { rss: rss / MB, pss: pss / MB }
}
