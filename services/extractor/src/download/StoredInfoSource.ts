// The resolve's stored info as the source of a run: written into the job's own directory (readable by the service
// user alone, it goes with the directory), narrowed to a clip's fragments when the job is a clip of fragmented media;
// none when there is none to use, which never fails the job.
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { ClipSection } from "@mds/shared/domain/job/DownloadOptions"
import { ResolvedInfoStore } from "../resolve/info/ResolvedInfoStore.ts"
import { clipInfo } from "./clip/clipInfo.ts"
import type { MediaSource } from "./FetchOptions.ts"

const INFO_FILE = "resolved.info.json"

const decodeInfo = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))

/** The info to write and the trimmed formats' starts; the info as stored when it is not trimmed. */
const forSection = (stored: string, section: ClipSection | undefined) => {
  const clip = section === undefined ? Option.none() : Option.flatMap(decodeInfo(stored), (info) => clipInfo(info, section))
  return Option.match(clip, {
    onNone: () => ({ text: stored, clipStarts: null }),
    onSome: (trimmed) => ({ text: JSON.stringify(trimmed.info), clipStarts: trimmed.starts })
  })
}

export class StoredInfoSource extends Context.Service<StoredInfoSource>()("mds/extractor/StoredInfoSource", {
  make: Effect.gen(function* () {
    const infoStore = yield* ResolvedInfoStore

    const sourceOf = Effect.fn("StoredInfoSource.sourceOf")(function* (mediaId: string, workDir: string, section?: ClipSection) {
      const info = yield* infoStore.get(mediaId).pipe(
        Effect.tapError((error) =>
          Effect.logWarning("stored resolve info unreadable", { operation: error.operation, message: error.message })
        ),
        Effect.orElseSucceed(() => Option.none<string>())
      )
      if (Option.isNone(info)) return Option.none<MediaSource>()
      const infoPath = join(workDir, INFO_FILE)
      const { text, clipStarts } = forSection(info.value, section)
      yield* Effect.promise(() => writeFile(infoPath, text, { mode: 0o600 }))
      // Conservative: the word as a JSON key or value anywhere (a format, its headers) counts as asking for it.
      return Option.some<MediaSource>({ _tag: "StoredInfo", infoPath, clipStarts, impersonates: text.includes('"impersonate"') })
    })

    return { sourceOf }
  })
}) {
  static readonly layer = Layer.effect(StoredInfoSource, StoredInfoSource.make)
}
