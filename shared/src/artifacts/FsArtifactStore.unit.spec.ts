import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { text } from "node:stream/consumers"
import { Effect, Exit } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeDownloadLinkSigner } from "./DownloadLinkSigner.ts"
import { isSafeArtifactKey, makeFsArtifactStore } from "./FsArtifactStore.ts"

let dir = ""
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mds-artifacts-"))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const signer = makeDownloadLinkSigner("secret", "http://127.0.0.1:8080")
const store = () => makeFsArtifactStore(join(dir, "artifacts"), signer)

const sourceFile = async (content: string) => {
  const path = join(dir, `src-${Math.random()}`)
  await writeFile(path, content)
  return path
}

describe("FsArtifactStore", () => {
  it("stores a file and opens it with its size and content type", async () => {
    const s = store()
    const stored = await Effect.runPromise(s.putFile("jobs/p/j/clip.mp4", await sourceFile("hello video"), "video/mp4"))
    expect(stored).toEqual({ key: "jobs/p/j/clip.mp4", sizeBytes: 11 })
    const opened = await Effect.runPromise(s.open("jobs/p/j/clip.mp4"))
    expect(opened.sizeBytes).toBe(11)
    expect(opened.contentType).toBe("video/mp4")
    expect(await text(opened.body)).toBe("hello video")
    expect(await readFile(join(dir, "artifacts", "files", "jobs", "p", "j", "clip.mp4"), "utf8")).toBe("hello video")
  })

  it("reports a missing key as ArtifactNotFound", async () => {
    const exit = await Effect.runPromiseExit(store().open("jobs/p/j/none.mp4"))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("ArtifactNotFound")
  })

  it("removes a file so it can no longer be opened", async () => {
    const s = store()
    await Effect.runPromise(s.putFile("a/b.txt", await sourceFile("x"), "text/plain"))
    await Effect.runPromise(s.remove("a/b.txt"))
    const exit = await Effect.runPromiseExit(s.open("a/b.txt"))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("ArtifactNotFound")
  })

  it.each(["../escape.txt", "a/../../escape.txt", "/etc/passwd", "a//b", "a/./b", "a\\..\\b", "a/\u0000b", ""])(
    "refuses the unsafe key %j",
    async (key) => {
      expect(isSafeArtifactKey(key)).toBe(false)
      const exit = await Effect.runPromiseExit(store().putFile(key, await sourceFile("x"), "text/plain"))
      expect(Exit.isFailure(exit)).toBe(true)
    }
  )

  it("accepts keys with spaces and unicode in the file name", () => {
    expect(isSafeArtifactKey("jobs/prj_x/job_y/Ünïcode clip — 1.mp4")).toBe(true)
  })

  it("presigns a link the signer verifies", async () => {
    const link = new URL(
      await Effect.runPromise(store().presign("thumbnails/med_a.jpg", { expiresAt: 4_000_000_000_000, filename: "med_a.jpg" }))
    )
    expect(link.pathname).toBe("/v1/files/thumbnails/med_a.jpg")
    expect(
      signer.verify("thumbnails/med_a.jpg", link.searchParams.get("expires") ?? "", link.searchParams.get("signature") ?? "", Date.now())
    ).toBe("valid")
  })
})
