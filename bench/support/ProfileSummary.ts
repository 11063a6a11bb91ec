// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, and time per package.
// Usage: node bench/support/ProfileSummary.ts FILE.cpuprofile [TOP]
import { readFileSync } from "node:fs"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const file = process.argv[2]
if (file === undefined) throw new Error("usage: ProfileSummary.ts FILE.cpuprofile [TOP]")
const top = Number(process.argv[3] ?? "25")
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile

const selfUs = new Map<number, number>()
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
const total = [...selfUs.values()].reduce((a, b) => a + b, 0)

/** Where a frame's code lives: a package under node_modules, node internals, the repository, or the VM itself. */
const areaOf = (url: string) => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg !== null) return pkg[1]!
  if (url.startsWith("node:")) return "node internals"
  if (url === "") return "(vm: gc, idle, native)"
  const repo = /\/(services\/[^/]+|shared)\//.exec(url)
  return repo === null ? url : repo[1]!
}

const byFunction = new Map<string, number>()
const byArea = new Map<string, number>()
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0
  if (us === 0) continue
  const { functionName, url, lineNumber } = node.callFrame
  const name = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(services|shared)\//, "$1/")}:${lineNumber + 1}`
  byFunction.set(name, (byFunction.get(name) ?? 0) + us)
  const area = areaOf(url)
  byArea.set(area, (byArea.get(area) ?? 0) + us)
}

const pct = (us: number) => `${((100 * us) / total).toFixed(1)}%`
const print = (title: string, entries: Map<string, number>, limit: number) => {
  process.stdout.write(`${title}\n`)
  for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    process.stdout.write(`  ${pct(us).padStart(6)}  ${name}\n`)
  }
}
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`)
print("self time by area:", byArea, 15)
print(`top ${top} functions by self time:`, byFunction, top)
