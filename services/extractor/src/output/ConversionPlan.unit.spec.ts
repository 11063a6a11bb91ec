// When a finished video goes through ffmpeg again, and what ffmpeg is told to change.
import { describe, expect, it } from "vitest"
import { planConversion } from "./ConversionPlan.ts"

const h264Mp4 = { ext: "mp4", videoCodecs: ["h264"], audioCodecs: ["aac"], subtitleCodecs: [] }

describe("planConversion", () => {
  it("leaves a plain download alone", () => expect(planConversion(undefined, h264Mp4)).toBeNull())
  it("leaves a file that already is what was asked for alone", () => {
    expect(planConversion({ videoCodec: "h264", container: "mp4" }, h264Mp4)).toBeNull()
    expect(planConversion({ videoCodec: "any" }, h264Mp4)).toBeNull()
    expect(planConversion({ section: { start: 1, end: 2, precise: true } }, h264Mp4)).toBeNull()
  })
  it("re-encodes only the video to another codec, copying the rest", () => {
    const plan = planConversion({ videoCodec: "av1", container: "mkv" }, h264Mp4)
    expect(plan?.ext).toBe("mkv")
    expect(plan?.args.join(" ")).toContain("-c copy -c:V libsvtav1")
    expect(plan?.args).not.toContain("-c:a")
  })
  it("webm: VP9 by default and Opus sound", () => {
    const plan = planConversion({ container: "webm" }, h264Mp4)
    expect(plan?.ext).toBe("webm")
    expect(plan?.args.join(" ")).toContain("-c:V libvpx-vp9")
    expect(plan?.args.join(" ")).toContain("-c:a libopus")
  })
  it("remuxes without re-encoding when only the container changes", () => {
    const plan = planConversion({ container: "mkv" }, h264Mp4)
    expect(plan).toEqual({ ext: "mkv", args: ["-map", "0", "-dn", "-c", "copy"] })
  })
  it("mute drops the sound of a file that has some, and nothing else", () => {
    expect(planConversion({ mute: true }, h264Mp4)?.args).toEqual([
      "-map",
      "0",
      "-dn",
      "-c",
      "copy",
      "-map",
      "-0:a",
      "-movflags",
      "+faststart"
    ])
    expect(planConversion({ mute: true }, { ...h264Mp4, audioCodecs: [] })).toBeNull()
  })
  it("subtitles follow the container: mov_text into mkv becomes srt, into webm webvtt", () => {
    const withSubs = { ...h264Mp4, subtitleCodecs: ["mov_text"] }
    expect(planConversion({ subtitles: ["en"] }, withSubs)).toBeNull()
    expect(planConversion({ container: "mkv", subtitles: ["en"] }, withSubs)?.args.join(" ")).toContain("-c:s srt")
    expect(planConversion({ container: "webm", subtitles: ["en"] }, withSubs)?.args.join(" ")).toContain("-c:s webvtt")
  })
})
