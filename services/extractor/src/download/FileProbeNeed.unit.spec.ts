import { describe, expect, it } from "vitest"
import type { AnnouncedMedia } from "../ytdlp/InfoLine.ts"
import { needsFileProbe } from "./FileProbeNeed.ts"

const video = { kind: "video", height: null } as const
const audio = { kind: "audio", codec: "mp3" } as const
const limited = { maxDurationSeconds: 3600, maxFileBytes: 0 }
const unlimited = { maxDurationSeconds: 0, maxFileBytes: 0 }
const announced = (facts: Partial<AnnouncedMedia>): AnnouncedMedia => ({
  durationSeconds: 60,
  bytes: null,
  videoCodec: "avc1.64001f",
  audioCodec: "mp4a.40.2",
  formatId: "hls-1",
  live: false,
  upcoming: null,
  ...facts
})

describe("needsFileProbe", () => {
  it("skips the probe when yt-dlp announced the asked-for stream and the duration", () => {
    expect(needsFileProbe(video, announced({}), limited)).toBe(false)
    expect(needsFileProbe(audio, announced({ videoCodec: "none" }), limited)).toBe(false)
  })
  it("probes a file whose streams yt-dlp did not know (a direct file) or said are missing", () => {
    expect(needsFileProbe(video, null, limited)).toBe(true)
    expect(needsFileProbe(video, announced({ videoCodec: null }), limited)).toBe(true)
    expect(needsFileProbe(video, announced({ videoCodec: "none" }), limited)).toBe(true)
    expect(needsFileProbe(audio, announced({ audioCodec: null }), limited)).toBe(true)
  })
  it("probes for the duration only when a duration limit applies", () => {
    expect(needsFileProbe(video, announced({ durationSeconds: null }), limited)).toBe(true)
    expect(needsFileProbe(video, announced({ durationSeconds: null }), unlimited)).toBe(false)
  })
})
