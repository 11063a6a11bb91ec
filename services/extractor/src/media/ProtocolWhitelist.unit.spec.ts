// Given an input URL, then which protocols ffmpeg and ffprobe may open for it.
import { describe, expect, it } from "vitest"
import { protocolWhitelist } from "./Ffmpeg.ts"

const protocols = (url: string) => protocolWhitelist(url).split(",")

describe("protocolWhitelist", () => {
  it("an http input gets no protocol that opens its own connection or reads local data", () => {
    expect(protocols("http://media.example/x.m3u8").sort()).toEqual(["crypto", "hls", "http", "tcp"])
    expect(protocols("HTTP://media.example/x.mp4")).not.toContain("httpproxy")
  })

  it("an https input gets httpproxy, which ffmpeg's TLS needs to tunnel through -http_proxy, and still no local protocol", () => {
    expect(protocols("https://media.example/x.m3u8")).toContain("httpproxy")
    for (const local of ["file", "data", "concat", "subfile", "pipe", "udp", "rtmp"]) {
      expect(protocols("https://media.example/x.m3u8")).not.toContain(local)
    }
  })
})
