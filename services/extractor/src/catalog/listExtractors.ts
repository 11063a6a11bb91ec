// Reads every extractor of the installed yt-dlp (key, name, description, working) through yt-dlp's own Python API.
import { Effect, Schema } from "effect"
import { catalogExtractors, ExtractorInfo } from "@mds/shared/domain/platform/CatalogEvent"
import { releasePython } from "../sandbox/ReleasePython.ts"
import { type ConfinementShape, killRunTree } from "../sandbox/Confinement.ts"
import type { YtDlpShape } from "../ytdlp/YtDlpProcess.ts"

const SCRIPT = [
  "import json",
  "from yt_dlp.extractor import gen_extractor_classes",
  "print(json.dumps([{'key': ie.ie_key(), 'name': ie.IE_NAME, 'description': ie.IE_DESC if isinstance(ie.IE_DESC, str) else None,",
  "  'working': bool(ie.working())} for ie in gen_extractor_classes()]))"
].join("\n")

const decodeList = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Array(ExtractorInfo)))

/** Through the confined runner like every child process, with no network at all (it needs none). */
const runPython = (confinement: ConfinementShape, python: string) =>
  Effect.callback<string, Error>((resume) => {
    let child: ReturnType<ConfinementShape["spawn"]>
    try {
      child = confinement.spawn(python, ["-I", "-c", SCRIPT], { proxyUrl: null })
    } catch (error) {
      resume(Effect.fail(error instanceof Error ? error : new Error(String(error))))
      return
    }
    const stdout: Array<Buffer> = []
    let stderr = ""
    child.stdin.end()
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-2000)))
    const timer = setTimeout(() => killRunTree(child), 60_000)
    child.once("error", (error) => {
      clearTimeout(timer)
      resume(Effect.fail(error))
    })
    child.once("close", (exitCode) => {
      clearTimeout(timer)
      resume(
        exitCode === 0 ? Effect.succeed(Buffer.concat(stdout).toString("utf8")) : Effect.fail(new Error(stderr || `exit code ${exitCode}`))
      )
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      killRunTree(child)
    })
  })

/**
 * yt-dlp's `--list-extractors` prints names only (IE_NAME: "twitch:vod"), while a media names its extractor by key
 * ("TwitchVod"): only the Python API gives both. A binary build without a reachable interpreter falls back to the
 * names, which then stand in for keys.
 */
export const listExtractors = (ytDlpPath: string, ytdlp: YtDlpShape, confinement: ConfinementShape) =>
  Effect.gen(function* () {
    const python = yield* releasePython(ytDlpPath)
    if (python !== null) {
      const listed = yield* runPython(confinement, python).pipe(
        Effect.flatMap((stdout) => decodeList(stdout)),
        Effect.result
      )
      if (listed._tag === "Success") return listed.success
      yield* Effect.logWarning("yt-dlp's extractor list could not be read through Python; using --list-extractors", {
        message: listed.failure.message
      })
    }
    const lines = yield* ytdlp.listExtractors
    return catalogExtractors({ _tag: "ExtractorCatalogPublished", v: 1, ytDlpVersion: "", extractors: lines, at: 0 })
  })
