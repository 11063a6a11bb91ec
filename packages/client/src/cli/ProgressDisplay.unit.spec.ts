// Given progress readings, then what the CLI writes: a redrawn bar on a terminal, one line per change otherwise.
import { describe, expect, it } from "vitest"
import { formatBytes, ProgressDisplay, renderBar } from "./ProgressDisplay.ts"

const recorder = () => {
  const writes: Array<string> = []
  return { writes, sink: { write: (text: string) => void writes.push(text) } }
}

describe("renderBar", () => {
  it("fills the bar in proportion and clamps the percent", () => {
    expect(renderBar(0, "queued")).toBe(`[${"-".repeat(30)}]   0% queued`)
    expect(renderBar(50, "processing")).toBe(`[${"#".repeat(15)}${"-".repeat(15)}]  50% processing`)
    expect(renderBar(140, "x")).toBe(`[${"#".repeat(30)}] 100% x`)
    expect(renderBar(-3, "x")).toContain("  0% x")
  })
})

describe("ProgressDisplay", () => {
  it("bar mode redraws one line in place and ends it on finish", () => {
    const { writes, sink } = recorder()
    const display = new ProgressDisplay("bar", sink)
    display.update("processing", 10)
    display.update("processing", 60)
    display.finish()
    expect(writes).toEqual([`\r\x1b[2K${renderBar(10, "processing")}`, `\r\x1b[2K${renderBar(60, "processing")}`, "\n"])
  })

  it("a reading without a percent (a live recording) shows only its detail, in both modes", () => {
    const plain = recorder()
    new ProgressDisplay("plain", plain.sink).update("recording", null, "0:04 recorded, 1.0 KiB")
    expect(plain.writes).toEqual(["recording 0:04 recorded, 1.0 KiB\n"])
    const bar = recorder()
    new ProgressDisplay("bar", bar.sink).update("recording", null, "0:04 recorded, 1.0 KiB")
    expect(bar.writes).toEqual(["\r\x1b[2Krecording 0:04 recorded, 1.0 KiB"])
  })

  it("plain mode writes a line per change and nothing for repeats; none writes nothing", () => {
    const { writes, sink } = recorder()
    const display = new ProgressDisplay("plain", sink)
    display.update("queued", 0)
    display.update("queued", 0)
    display.update("processing", 35)
    display.update("downloading", 50, "1.0 KiB / 2.0 KiB")
    display.finish()
    expect(writes).toEqual(["queued 0%\n", "processing 35%\n", "downloading 50% 1.0 KiB / 2.0 KiB\n"])
    const silent = recorder()
    new ProgressDisplay("none", silent.sink).update("processing", 5)
    expect(silent.writes).toEqual([])
  })

  it("formats byte counts", () => {
    expect(formatBytes(900)).toBe("900 B")
    expect(formatBytes(1536)).toBe("1.5 KiB")
    expect(formatBytes(5 * 1024 * 1024)).toBe("5.0 MiB")
  })
})
