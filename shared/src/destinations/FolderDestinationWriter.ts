// Extension: DestinationWriter on a folder of the service's host (given to a project by the operator): a file is
// written under a temporary name in its final directory, then renamed, so a partial file never shows under its name;
// the temporary file of an earlier put of the same name that was killed midway is removed by the next put.
import { randomBytes } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { mkdir, readdir, realpath, rename, rm, stat } from "node:fs/promises"
import { hostname } from "node:os"
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path"
import { pipeline } from "node:stream/promises"
import { Effect } from "effect"
import {
  checkDestinationKey,
  DestinationDenied,
  type DestinationError,
  DestinationFailed,
  DestinationMissing,
  type DestinationWriter,
  type PutSource,
  withProbe
} from "./DestinationWriter.ts"

const codeOf = (cause: unknown) => (typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "")

/** A file system error as the port names it; the message is the system's (paths are the operator's, not a secret). */
export const folderFailure =
  (operation: string) =>
  (cause: unknown): DestinationError => {
    const message = cause instanceof Error ? cause.message : String(cause)
    switch (codeOf(cause)) {
      case "EACCES":
      case "EPERM":
      case "EROFS":
        return new DestinationDenied({ operation, message })
      case "ENOENT":
      case "ENOTDIR":
        return new DestinationMissing({ operation, message })
      default:
        return new DestinationFailed({ operation, message })
    }
  }

/** Whether `path` is `root` or inside it (both already resolved). */
export const isInside = (root: string, path: string): boolean => {
  const rel = relative(root, path)
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel) && rel.split(sep)[0] !== "..")
}

/**
 * The folder, resolved through symbolic links; with a root (DESTINATION_FOLDER_ROOT), it must lie inside it, so a
 * link planted later cannot lead deliveries elsewhere on the host.
 */
export const resolveFolder = Effect.fn("resolveFolder")(function* (path: string, root: string | null) {
  if (!isAbsolute(path)) return yield* new DestinationFailed({ operation: "open", message: `the folder must be an absolute path: ${path}` })
  const real = yield* Effect.tryPromise({ try: () => realpath(path), catch: folderFailure("open") })
  const info = yield* Effect.tryPromise({ try: () => stat(real), catch: folderFailure("open") })
  if (!info.isDirectory()) return yield* new DestinationMissing({ operation: "open", message: `${path} is not a folder` })
  if (root !== null) {
    const realRoot = yield* Effect.tryPromise({ try: () => realpath(root), catch: folderFailure("open") })
    if (!isInside(realRoot, real)) {
      return yield* new DestinationDenied({ operation: "open", message: `${path} is not inside DESTINATION_FOLDER_ROOT` })
    }
  }
  return real
})

/** A temporary file of another host untouched this long belongs to a put that died. */
export const STALE_PARTIAL_MS = 15 * 60_000

/** This host, as temporary names carry it (a folder may be shared by the services of several hosts). */
export const PARTIAL_HOST =
  hostname()
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 32) || "host"

/** `.NAME.HOST.PID.RANDOM.partial`: whose put it is, so a later put can tell a dead writer's file from a live one's. */
const partialName = (name: string) => `.${name}.${PARTIAL_HOST}.${process.pid}.${randomBytes(6).toString("hex")}.partial`

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    // EPERM: it exists, under another user.
    return codeOf(cause) === "EPERM"
  }
}

/**
 * Temporary files of earlier puts of `name` in `dir` whose writer died (a process killed mid-write): on this host, a
 * writer process that no longer exists; on another, a file untouched for STALE_PARTIAL_MS.
 */
const removeDeadPartials = async (dir: string, name: string, now: number) => {
  const prefix = `.${name}.`
  const entries = await readdir(dir).catch(() => [] as Array<string>)
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue
    const owner = /^([a-z0-9-]+)\.(\d+)\.[0-9a-f]{12}\.partial$/.exec(entry.slice(prefix.length))
    if (owner === null) continue
    const [, host, pid] = owner
    const path = join(dir, entry)
    const dead =
      host === PARTIAL_HOST
        ? Number(pid) !== process.pid && !isAlive(Number(pid))
        : await stat(path).then(
            (info) => now - info.mtimeMs > STALE_PARTIAL_MS,
            () => false
          )
    if (dead) await rm(path, { force: true })
  }
}

export const makeFolderDestinationWriter = (folder: string): DestinationWriter => {
  const pathOf = (key: string) => join(folder, ...key.split("/"))

  const put = Effect.fn("FolderDestinationWriter.put")(function* (key: string, source: PutSource, _contentType: string) {
    yield* checkDestinationKey("write", key)
    const final = pathOf(key)
    const temp = join(dirname(final), partialName(basename(final)))
    yield* Effect.tryPromise({
      try: async () => {
        await mkdir(dirname(final), { recursive: true })
        await removeDeadPartials(dirname(final), basename(final), Date.now())
        try {
          const input = "path" in source ? createReadStream(source.path) : source.stream
          await pipeline(input, createWriteStream(temp, { flags: "wx", mode: 0o644 }))
          await rename(temp, final)
        } catch (cause) {
          await rm(temp, { force: true })
          throw cause
        }
      },
      catch: folderFailure("write")
    })
    const { size } = yield* Effect.tryPromise({ try: () => stat(final), catch: folderFailure("write") })
    return { key, sizeBytes: size }
  })

  const exists = Effect.fn("FolderDestinationWriter.exists")(function* (key: string) {
    yield* checkDestinationKey("check", key)
    return yield* Effect.tryPromise({
      try: () =>
        stat(pathOf(key)).then(
          (info) => info.isFile(),
          (cause) => (codeOf(cause) === "ENOENT" ? false : Promise.reject(cause))
        ),
      catch: folderFailure("check")
    })
  })

  const remove = Effect.fn("FolderDestinationWriter.remove")(function* (key: string) {
    yield* checkDestinationKey("remove", key)
    yield* Effect.tryPromise({ try: () => rm(pathOf(key), { force: true }), catch: folderFailure("remove") })
  })

  return withProbe({ put, exists, remove })
}
