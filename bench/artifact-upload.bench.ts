// Benchmark (not a test): artifact upload throughput of the filesystem and S3 (moto) adapters on one 300 MB file,
// against `curl` writing the same file to disk from a local HTTP server. `npm run bench:artifacts [-- MB]`; prints a table.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { copyFile, mkdtemp, rm, stat } from "node:fs/promises"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { Effect, Redacted } from "effect"
import { makeDownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { makeFsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import { makeS3ArtifactStore } from "@mds/shared/artifacts/S3ArtifactStore"
import { startMotoServer } from "../test/support/MotoServer.ts"
import { freePort } from "../test/support/NatsServer.ts"

const MB = Number(process.argv[2] ?? 300)
const dir = await mkdtemp(join(tmpdir(), "mds-bench-artifacts-"))
const source = join(dir, "source.bin")

// Random bytes, written in 8 MiB chunks so the benchmark itself never holds the file either.
await new Promise<void>((resolve, reject) => {
  const out = createWriteStream(source)
  let left = MB * 1024 * 1024
  const write = () => {
    while (left > 0) {
      const chunk = randomBytes(Math.min(left, 8 * 1024 * 1024))
      left -= chunk.length
      if (!out.write(chunk)) return void out.once("drain", write)
    }
    out.end(resolve)
  }
  out.on("error", reject)
  write()
})
const bytes = (await stat(source)).size

const rows: Array<{ what: string; seconds: number }> = []
const timed = async (what: string, run: () => Promise<unknown>) => {
  process.stderr.write(`${what}...\n`)
  const started = performance.now()
  await run()
  rows.push({ what, seconds: (performance.now() - started) / 1000 })
}
/** Each adapter takes over its input (the extractor hands over a finished temp file), so each run gets a fresh copy. */
const copyOfSource = async (name: string) => {
  const path = join(dir, name)
  await copyFile(source, path)
  return path
}

const port = await freePort()
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-length": String(bytes), "content-type": "application/octet-stream" })
  createReadStream(source).pipe(res)
})
await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
const moto = await startMotoServer()
try {
  await timed("curl: local HTTP server -> file on disk (baseline)", async () => {
    // Asynchronous: the server answering curl runs in this process.
    const { stderr } = await promisify(execFile)("curl", ["-sS", "-o", join(dir, "curl.bin"), `http://127.0.0.1:${port}/source.bin`])
    if (stderr !== "") throw new Error(`curl failed: ${stderr}`)
  })

  const fsStore = makeFsArtifactStore(join(dir, "artifacts"), makeDownloadLinkSigner("bench", "http://bench"))
  const sameFs = await copyOfSource("fs-input.bin")
  await timed("filesystem adapter, input on the same filesystem (a rename, as in the extractor)", () =>
    Effect.runPromise(fsStore.putFile("bench/same-fs.bin", sameFs, "application/octet-stream"))
  )
  const copied = await copyOfSource("fs-copy-input.bin")
  await timed("filesystem adapter across filesystems (copyFile then rename, as on EXDEV)", async () => {
    // What the adapter does on EXDEV: the kernel copies (copyFile), nothing passes through the heap.
    await copyFile(copied, join(dir, "artifacts", "copied.bin"))
    await rm(copied)
  })

  const s3Store = await Effect.runPromise(
    Effect.scoped(
      makeS3ArtifactStore({
        endpoint: moto.endpoint,
        publicUrl: moto.endpoint,
        bucket: "mds-bench",
        region: "us-east-1",
        accessKey: Redacted.make("bench"),
        secretKey: Redacted.make("bench")
      })
    )
  )
  const s3Input = await copyOfSource("s3-input.bin")
  await timed("S3 adapter on moto (streamed multipart upload, 16 MiB parts)", () =>
    Effect.runPromise(s3Store.putFile("bench/upload.bin", s3Input, "application/octet-stream"))
  )
} finally {
  await moto.close()
  server.close()
  await rm(dir, { recursive: true, force: true })
}

console.log(`artifact upload of one ${MB} MiB file (${bytes} bytes), ${process.platform}, loopback only`)
console.log("| path | seconds | MiB/s |")
console.log("|---|---:|---:|")
for (const row of rows) console.log(`| ${row.what} | ${row.seconds.toFixed(2)} | ${(bytes / 1024 / 1024 / row.seconds).toFixed(0)} |`)
