// Where a clip is cut in the fetched fragments, and how (copy, or the video re-encoded).
import { describe, expect, it } from "vitest"
import { clipCutArgs, cutOffsets } from "./clipCutArgs.ts"

const starts = new Map([
  ["v", { startSeconds: 16, video: true, audio: false }],
  ["a", { startSeconds: 18, video: false, audio: true }],
  ["muxed", { startSeconds: 20, video: true, audio: true }]
])
const keyframes = { start: 21, end: 31, precise: false }

describe("cutOffsets", () => {
  it("a merge cuts its video and its audio each at its own offset; a muxed format at one", () => {
    expect(cutOffsets(keyframes, starts, "v+a")).toEqual({ video: 5, audio: 3 })
    expect(cutOffsets(keyframes, starts, "muxed")).toEqual({ video: 1, audio: 1 })
    expect(cutOffsets(keyframes, starts, "a")).toEqual({ video: 3, audio: 3 })
  })
  it("is null for a format the trimmed info does not know", () => {
    expect(cutOffsets(keyframes, starts, "v+other")).toBeNull()
  })
})

describe("clipCutArgs", () => {
  it("one input when video and audio start together, every stream copied, local files only", () => {
    const args = clipCutArgs("/w/media.mp4", "/w/clip.mp4", "mp4", keyframes, { video: 1, audio: 1 })
    expect(args.join(" ")).toBe(
      "-hide_banner -loglevel error -nostdin -y -protocol_whitelist file -ss 1.000 -t 10.000 -i file:/w/media.mp4 -map 0 -c copy file:/w/clip.mp4"
    )
  })
  it("two inputs when they do not, the audio from the second; a precise cut re-encodes the video only", () => {
    const args = clipCutArgs("/w/media.webm", "/w/clip.webm", "webm", { ...keyframes, precise: true }, { video: 5, audio: 3 })
    const joined = args.join(" ")
    expect(joined).toContain("-ss 5.000 -t 10.000 -i file:/w/media.webm -protocol_whitelist file -ss 3.000 -t 10.000 -i file:/w/media.webm")
    expect(joined).toContain("-map 0 -map -0:a -map 1:a? -c copy -c:V libvpx-vp9")
    expect(args.filter((a) => a === "-protocol_whitelist")).toHaveLength(2)
  })
})
