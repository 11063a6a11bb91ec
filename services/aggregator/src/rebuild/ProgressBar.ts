// A one-line progress bar for terminals (stderr), redrawn at most every 100 ms; plain lines when stderr is not a TTY.

export interface ProgressBar {
  update(done: number, total: number): void
  finish(done: number, total: number): void
}

const WIDTH = 30

export const renderBar = (label: string, done: number, total: number): string => {
  const ratio = total <= 0 ? 1 : Math.min(1, done / total)
  const filled = Math.round(ratio * WIDTH)
  return `${label} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${done}/${total} events`
}

export const makeProgressBar = (label: string, out: NodeJS.WriteStream = process.stderr): ProgressBar => {
  let last = 0
  const draw = (line: string, final: boolean) => {
    // A log file gets a line every 2 s instead of carriage returns.
    if (out.isTTY) out.write(`\r${line}${final ? "\n" : ""}`)
    else out.write(`${line}\n`)
  }
  return {
    update: (done, total) => {
      const now = Date.now()
      if (now - last < (out.isTTY ? 100 : 2_000)) return
      last = now
      draw(renderBar(label, done, total), false)
    },
    finish: (done, total) => draw(renderBar(label, done, total), true)
  }
}
