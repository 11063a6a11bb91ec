// `npm run bench [-- NAME ...]`: runs every bench/*.bench.ts (or those whose name contains a NAME) one after another.
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const benchDir = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)
const all = readdirSync(benchDir)
  .filter((name) => name.endsWith(".bench.ts"))
  .sort()
const chosen = wanted.length === 0 ? all : all.filter((name) => wanted.some((w) => name.replace(/\.bench\.ts$/, "").includes(w)))
if (chosen.length === 0) {
  process.stderr.write(
    `no benchmark matches ${wanted.join(", ")}; there are: ${all.map((n) => n.replace(/\.bench\.ts$/, "")).join(", ")}\n`
  )
  process.exit(1)
}

const runOne = (name: string) =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [join(benchDir, name)], { stdio: "inherit" })
    child.on("close", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })

process.stdout.write(`## Benchmarks (${new Date().toISOString()}, node ${process.version})\n\n`)
const failed: Array<string> = []
for (const name of chosen) {
  process.stderr.write(`[bench] ${name}\n`)
  const code = await runOne(name)
  if (code !== 0) failed.push(`${name} (exit ${code})`)
}
if (failed.length > 0) {
  process.stderr.write(`[bench] failed to run: ${failed.join(", ")}\n`)
  process.exitCode = 1
}
