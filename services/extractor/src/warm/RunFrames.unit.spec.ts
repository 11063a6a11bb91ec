import { describe, expect, it } from "vitest"
import { decodeRunExited, decodeRunStarted, frameReader } from "./RunFrames.ts"

const frame = (tag: string, payload: string | Buffer) => {
  const body = typeof payload === "string" ? Buffer.from(payload) : payload
  const header = Buffer.alloc(5)
  header.write(tag, 0, "latin1")
  header.writeUInt32BE(body.length, 1)
  return Buffer.concat([header, body])
}

describe("frameReader", () => {
  it("reads several frames from one chunk, in order", () => {
    const read = frameReader()
    const frames = read(Buffer.concat([frame("p", '{"pgid":7}'), frame("o", "a\n"), frame("e", "b"), frame("x", "{}")]))
    expect(frames.map((f) => [f.tag, f.payload.toString()])).toEqual([
      ["p", '{"pgid":7}'],
      ["o", "a\n"],
      ["e", "b"],
      ["x", "{}"]
    ])
  })

  it("keeps a frame split across chunks (header and payload alike) until it is whole", () => {
    const read = frameReader()
    const whole = Buffer.concat([frame("o", "hello"), frame("e", Buffer.alloc(70_000, 1))])
    const seen: Array<[string, number]> = []
    for (let at = 0; at < whole.length; at += 3) {
      for (const f of read(whole.subarray(at, at + 3))) seen.push([f.tag, f.payload.length])
    }
    expect(seen).toEqual([
      ["o", 5],
      ["e", 70_000]
    ])
  })

  it("an empty payload is a frame", () => {
    expect(frameReader()(frame("o", "")).map((f) => f.payload.length)).toEqual([0])
  })

  it("throws on a tag that is not the runner's", () => {
    expect(() => frameReader()(frame("z", "x"))).toThrow(/unknown frame tag/)
  })
})

describe("frame payloads", () => {
  it("decode the start and the end, and refuse anything else", () => {
    expect(decodeRunStarted('{"pgid":4321}')).toEqual({ pgid: 4321 })
    expect(decodeRunExited('{"code":1,"signal":null}')).toEqual({ code: 1, signal: null })
    expect(decodeRunExited('{"code":null,"signal":9}')).toEqual({ code: null, signal: 9 })
    expect(() => decodeRunStarted('{"pgid":"1"}')).toThrow()
    expect(() => decodeRunExited("not json")).toThrow()
  })
})
