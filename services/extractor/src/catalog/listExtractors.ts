// Reads every extractor of the installed yt-dlp (key, name, description, working) through yt-dlp's own Python API.
import { execFile } from "node:child_process"
import { readFile } from "node:fs/promises"
import { Effect, Schema } from "effect"
import { catalogExtractors, ExtractorInfo } from "@mds/shared/domain/platform/CatalogEvent"
import type { YtDlpShape } from "../ytdlp/YtDlp.ts"

const SCRIPT = [
  "import json",
  "from yt_dlp.extractor import gen_extractor_classes",
  "print(json.dumps([{'key': ie.ie_key(), 'name': ie.IE_NAME, 'description': ie.IE_DESC if isinstance(ie.IE_DESC, str) else None,",
  "  'working': bool(ie.working())} for ie in gen_extractor_classes()]))"
].join("\n")

const decodeList = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Array(ExtractorInfo)))

/** The interpreter of a yt-dlp installed by pip (its entry script starts with `#!<python>`); null for a binary build. */
const pythonOf = (ytDlpPath: string) =>
  Effect.promise(() =>
    readFile(ytDlpPath).then(
      (bytes) => {
        const first = bytes.subarray(0, 512).toString("utf8").split("\n")[0] ?? ""
        const match = /^#!\s*(\/\S*python[0-9.]*)\s*$/.exec(first)
        return match?.[1] ?? null
      },
      () => null
    )
  )

const runPython = (python: string) =>
  Effect.callback<string, Error>((resume) => {
    const child = execFile(python, ["-I", "-c", SCRIPT], { maxBuffer: 16 * 1024 * 1024, timeout: 60_000 }, (error, stdout) => {
      resume(error === null ? Effect.succeed(stdout) : Effect.fail(error))
    })
    return Effect.sync(() => {
      if (child.exitCode === null) child.kill("SIGKILL")
    })
  })

/**
 * yt-dlp's `--list-extractors` prints names only (IE_NAME: "twitch:vod"), while a media names its extractor by key
 * ("TwitchVod"): only the Python API gives both. A binary build without a reachable interpreter falls back to the
 * names, which then stand in for keys.
 */
export const listExtractors = (ytDlpPath: string, ytdlp: YtDlpShape) =>
  Effect.gen(function*() {
    const python = yield* pythonOf(ytDlpPath)
    if (python !== null) {
      const listed = yield* runPython(python).pipe(Effect.flatMap((stdout) => decodeList(stdout)), Effect.result)
      if (listed._tag === "Success") return listed.success
      yield* Effect.logWarning("yt-dlp's extractor list could not be read through Python; using --list-extractors", {
        message: listed.failure.message
      })
    }
    const lines = yield* ytdlp.listExtractors
    return catalogExtractors({ _tag: "ExtractorCatalogPublished", v: 1, ytDlpVersion: "", extractors: lines, at: 0 })
  })
