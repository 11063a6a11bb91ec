// Samples a process's resident set size from /proc while a benchmark runs, keeping the peak.
import { readFile } from "node:fs/promises"

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
