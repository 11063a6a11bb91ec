// The resolve's stored info as the source of a run: written into the job's own directory (readable by the service
// user alone, it goes with the directory); none when there is none to use, which never fails the job.
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer, Option } from "effect"
import { ResolvedInfoStore } from "../resolve/info/ResolvedInfoStore.ts"
import type { MediaSource } from "./FetchOptions.ts"

const INFO_FILE = "resolved.info.json"

export class StoredInfoSource extends Context.Service<StoredInfoSource>()("mds/extractor/StoredInfoSource", {
  make: Effect.gen(function* () {
    const infoStore = yield* ResolvedInfoStore

    const sourceOf = Effect.fn("StoredInfoSource.sourceOf")(function* (mediaId: string, workDir: string) {
      const info = yield* infoStore.get(mediaId).pipe(
        Effect.tapError((error) =>
          Effect.logWarning("stored resolve info unreadable", { operation: error.operation, message: error.message })
        ),
        Effect.orElseSucceed(() => Option.none<string>())
      )
      if (Option.isNone(info)) return Option.none<MediaSource>()
      const infoPath = join(workDir, INFO_FILE)
      yield* Effect.promise(() => writeFile(infoPath, info.value, { mode: 0o600 }))
      return Option.some<MediaSource>({ _tag: "StoredInfo", infoPath })
    })

    return { sourceOf }
  })
}) {
  static readonly layer = Layer.effect(StoredInfoSource, StoredInfoSource.make)
}
