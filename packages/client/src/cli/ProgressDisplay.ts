// How the CLI shows a running job and a file transfer: a redrawn bar on a terminal, or one line per change.

export type ProgressMode = "bar" | "plain" | "none"

const BAR_WIDTH = 30

export const formatBytes = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} B`
  const units = ["KiB", "MiB", "GiB", "TiB"]
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

/** `[#########---------------------]  30% label`, the percent clamped to 0-100. */
export const renderBar = (percent: number, label: string): string => {
  const clamped = Math.max(0, Math.min(100, Math.round(percent)))
  const filled = Math.round((clamped / 100) * BAR_WIDTH)
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${String(clamped).padStart(3)}% ${label}`
}

export interface ProgressSink {
  write(text: string): void
}

/** Shows successive (percent, label) readings; plain mode prints a line only when the reading changes. */
export class ProgressDisplay {
  private last: string | null = null
  private drawn = false
  private readonly mode: ProgressMode
  private readonly sink: ProgressSink
  constructor(mode: ProgressMode, sink: ProgressSink) {
    this.mode = mode
    this.sink = sink
  }

  /** `percent` null: no fraction to show (a live recording), only the detail. */
  update(phase: string, percent: number | null, detail = ""): void {
    const label = detail === "" ? phase : `${phase} ${detail}`
    switch (this.mode) {
      case "none":
        return
      case "plain": {
        const line = `${phase}${percent === null ? "" : ` ${Math.round(percent)}%`}${detail === "" ? "" : ` ${detail}`}`
        if (line !== this.last) this.sink.write(`${line}\n`)
        this.last = line
        return
      }
      case "bar":
        // \r plus "erase line" redraws in place; the bar never scrolls the terminal.
        this.sink.write(`\r\x1b[2K${percent === null ? label : renderBar(percent, label)}`)
        this.drawn = true
    }
  }

  /** Ends the bar's line so that later output starts on a fresh one. */
  finish(): void {
    if (this.mode === "bar" && this.drawn) this.sink.write("\n")
    this.drawn = false
    this.last = null
  }
}
