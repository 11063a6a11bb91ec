// A job with a destination asks yt-dlp for its whole info, the sidecar files and embedded metadata; others ask nothing more.
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { deliveryFlags } from "./DeliveryFlags.ts"
import { parseResultLine } from "./ResultLine.ts"
import { DELIVERY_RESULT_MARKER, RESULT_MARKER } from "./YtDlpFlags.ts"

const video = { kind: "video", height: null } as const
const order = (sidecars: ReadonlyArray<"info_json" | "thumbnail" | "nfo" | "subtitles">) => ({
  destinationId: "dst_a",
  pathTemplate: "{title}.{ext}",
  sidecars
})

describe("deliveryFlags", () => {
  it("adds nothing without a destination", () => expect(deliveryFlags(undefined, video, undefined)).toEqual({}))

  it("prints the whole info, embeds metadata and chapters, writes the thumbnail and the subtitles asked for", () => {
    const flags = deliveryFlags(order(["nfo", "subtitles"]), video, { subtitles: ["en", "de"] })
    expect(flags.print).toContainEqual(`after_move:${DELIVERY_RESULT_MARKER} %()j`)
    expect(flags).toMatchObject({ embedMetadata: true, embedChapters: true, writeThumbnail: true, writeSubs: true, subLangs: "en,de" })
  })

  it("embeds no chapters in webm nor in audio", () => {
    expect(deliveryFlags(order([]), video, { container: "webm" })).not.toHaveProperty("embedChapters")
    expect(deliveryFlags(order([]), { kind: "audio", codec: "mp3" }, undefined)).not.toHaveProperty("embedChapters")
  })
})

describe("parseResultLine", () => {
  it("reads the file's fields, and keeps the whole info of a delivery's result line", () => {
    const info = { filepath: "/w/media.mp4", title: "T", ext: "mp4", id: "abc", uploader: "U" }
    const parsed = parseResultLine(`${DELIVERY_RESULT_MARKER} ${JSON.stringify(info)}`)
    expect(Option.getOrNull(parsed)).toMatchObject({ filepath: "/w/media.mp4", title: "T", info })
    expect(Option.getOrNull(parseResultLine(`${RESULT_MARKER} {"filepath":"/w/m.mp4"}`))).toEqual({ filepath: "/w/m.mp4" })
  })
})
