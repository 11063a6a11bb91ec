import { describe, expect, it } from "vitest"
import { initialProgressThrottle, nextProgressReport, type ProgressThrottleState } from "../download/ProgressThrottle.ts"
import { parseProgressBytes, parseProgressLine } from "./ProgressLine.ts"

/**
 * Lines yt-dlp 2026.10.26 printed with -N 8 for a 60-fragment HLS stream of 15,501,613 bytes, in the order printed
 * (progress template: downloaded total estimate fragment_index fragment_count). Eight threads report through one
 * state: the estimate counts the bytes of every fragment in flight against the fragments finished, and a thread that
 * read the state before another one finished prints the older count after the newer one.
 */
const REAL_BYTES = 15_501_613
const interleaved = [
  "[mds-progress] 1024 NA 14618880.0 0 60",
  "[mds-progress] 34816 NA 17905920.0 0 60",
  "[mds-progress] 180224 NA 24910080.0 0 60",
  "[mds-progress] 466944 NA 43096320.0 0 60",
  "[mds-progress] 1422908 NA 46786440.0 1 60",
  "[mds-progress] 2105212 NA 28425936.0 4 60",
  "[mds-progress] 2188664 NA 16369013.333333332 8 60",
  "[mds-progress] 2310520 NA 17160906.666666668 8 60",
  "[mds-progress] 2673464 NA 17450448.0 9 60",
  "[mds-progress] 3400952 NA 21225552.0 9 60",
  "[mds-progress] 4050100 NA 21590000.0 12 60",
  "[mds-progress] 4390128 NA 16208131.764705881 16 60",
  "[mds-progress] 4350128 NA 21208131.764705881 15 60",
  "[mds-progress] 6047916 NA 19944682.10526316 19 60",
  "[mds-progress] 9150808 NA 17120858.18181818 32 60",
  "[mds-progress] 8800600 NA 16428603.636363637 31 60",
  "[mds-progress] 12117508 NA 16889192.727272727 44 60",
  "[mds-progress] 14916848 NA 16260595.714285715 55 60",
  "[mds-progress] 15426224 NA 16450947.368421054 56 60",
  "[mds-progress] 15501613 NA 15501613.0 60 60"
]

describe("progress of a download with eight fragments in flight", () => {
  it("never judges the stream larger than it is: the estimate is discounted by the fragments in flight", () => {
    const judged = interleaved.map((line) => parseProgressBytes(line, 8) ?? 0)
    // A 20 MB file limit must not end this 15.5 MB download (yt-dlp's own estimate reached 46.8 MB).
    expect(Math.max(...judged)).toBeLessThanOrEqual(REAL_BYTES * 1.2)
    // The estimate still speaks before the bytes arrive: early lines judge more than the bytes so far.
    expect(judged[4]).toBeGreaterThan(1422908 * 2)
  })

  it("with one fragment at a time the estimate is judged as yt-dlp gives it", () => {
    expect(parseProgressBytes("[mds-progress] 2000 NA 500000 1 9", 1)).toBe(500000)
  })

  it("JobProgressed stays monotonic and at most once a second, whatever order the threads print in", () => {
    // DownloadJob: every line sets the latest reading; a ticker reports it once a second through the throttle.
    let latest = 0
    let throttle: ProgressThrottleState = initialProgressThrottle
    const reported: Array<{ percent: number; at: number }> = []
    const tick = (now: number) => {
      const percent = nextProgressReport(throttle, latest, now)
      if (percent === null) return
      throttle = { reported: percent, reportedAt: now }
      reported.push({ percent, at: now })
    }
    // Two lines arrive every 400 ms; the ticker runs every 1000 ms, out of step with them.
    interleaved.forEach((line, i) => {
      const now = i * 200
      const percent = parseProgressLine(line)
      if (percent !== null) latest = percent
      if (now % 1000 === 0) tick(now)
    })
    tick(interleaved.length * 200 + 1000)
    expect(reported.length).toBeGreaterThan(2)
    for (let i = 1; i < reported.length; i++) {
      expect(reported[i]!.percent).toBeGreaterThan(reported[i - 1]!.percent)
      expect(reported[i]!.at - reported[i - 1]!.at).toBeGreaterThanOrEqual(1000)
    }
    expect(reported.at(-1)?.percent).toBe(95)
  })
})
