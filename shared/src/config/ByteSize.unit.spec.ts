// Sizes as settings and the admin CLI read them, and as pages show them.
import { describe, expect, it } from "vitest"
import { formatByteSize, parseByteSize } from "./ByteSize.ts"

describe("parseByteSize", () => {
  it.each([
    ["1048576", 1_048_576],
    ["50GB", 50 * 1024 ** 3],
    ["1.5 TiB", 1.5 * 1024 ** 4],
    ["500mb", 500 * 1024 ** 2],
    ["0", 0]
  ])("reads %s", (text, bytes) => expect(parseByteSize(text)).toBe(bytes))

  it.each(["", "GB", "-5GB", "5 parsecs", "1e3"])("refuses %j with a message", (text) => expect(typeof parseByteSize(text)).toBe("string"))
})

describe("formatByteSize", () => {
  it.each([
    [512, "512 B"],
    [1536, "1.5 KB"],
    [50 * 1024 ** 3, "50 GB"]
  ])("shows %d as %s", (bytes, text) => expect(formatByteSize(bytes)).toBe(text))
})
