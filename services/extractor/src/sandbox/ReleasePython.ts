// The Python interpreter of a yt-dlp release, read from its entry script: what its API and the warm runner run on.
import { readFile } from "node:fs/promises"
import { Effect } from "effect"

/** The interpreter of a yt-dlp installed by pip (its entry script starts with `#!<python>`); null for a binary build. */
export const releasePython = (ytDlpPath: string): Effect.Effect<string | null> =>
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
