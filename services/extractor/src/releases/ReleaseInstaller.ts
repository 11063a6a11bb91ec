// Installs a yt-dlp release (with the pinned curl_cffi) into a venv of its own under the releases directory.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { access, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer, Schema } from "effect"
import type { YtDlpReleaseChoice } from "@mds/shared/domain/release/YtDlpReleaseEvent"
import type { Release } from "../ytdlp/ActiveRelease.ts"
import { latestVersionOf } from "./PipIndexOutput.ts"
import { ReleaseConfig } from "./ReleaseConfig.ts"

export class ReleaseInstallFailed extends Schema.TaggedError<ReleaseInstallFailed>()("ReleaseInstallFailed", {
  message: Schema.String
}) {}

const OUTPUT_LIMIT = 4 * 1024 * 1024

/**
 * Runs a program; its stderr tail is the failure message. The child inherits the environment, so pip honours
 * PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS, pip.conf and the proxy settings an operator set.
 */
const runProgram = (file: string, args: ReadonlyArray<string>, timeoutMs: number) =>
  Effect.callback<string, ReleaseInstallFailed>((resume) => {
    const child = execFile(
      file,
      [...args],
      { timeout: timeoutMs, maxBuffer: OUTPUT_LIMIT, killSignal: "SIGKILL" },
      (error, stdout, stderr) => {
        if (error === null) return resume(Effect.succeed(stdout))
        const tail = `${stderr}`
          .trim()
          .split("\n")
          .filter((line) => !/^WARNING: /.test(line))
          .slice(-3)
          .join(" ")
          .slice(0, 500)
        resume(Effect.fail(new ReleaseInstallFailed({ message: `${file} ${args.slice(0, 3).join(" ")} failed: ${tail || error.message}` })))
      }
    )
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false
  )

/** Versions become directory names: only what a PEP 440 version can hold. */
const safeVersion = (version: string) => /^[0-9A-Za-z.+!-]+$/.test(version)

export class ReleaseInstaller extends Context.Service<
  ReleaseInstaller,
  {
    /** The release `choice` stands for, installed (or found installed); channels are looked up in the package index. */
    install(choice: YtDlpReleaseChoice): Effect.Effect<Release, ReleaseInstallFailed>
  }
>()("mds/extractor/ReleaseInstaller") {
  static readonly layer = Layer.effect(
    ReleaseInstaller,
    Effect.gen(function* () {
      const config = yield* ReleaseConfig
      const root = config.releasesDir
      const pip = (venv: string, args: ReadonlyArray<string>) =>
        runProgram(
          join(venv, "bin", "python"),
          ["-m", "pip", "--disable-pip-version-check", "--no-input", ...args],
          config.installTimeoutMs
        )

      /**
       * `<version>.ready` names the venv that holds a finished install of that version. Several extractors may share
       * DATA_DIR: each installs into a directory of its own and the pointer is replaced atomically, so a reader always
       * finds a complete venv (venvs cannot be moved: their scripts name their own path).
       */
      const installed = Effect.fn("ReleaseInstaller.installed")(function* (version: string) {
        const pointer = join(root, `${version}.ready`)
        const dir = yield* Effect.promise(() =>
          readFile(pointer, "utf8").then(
            (text) => text.trim(),
            () => null
          )
        )
        if (dir === null || !/^[0-9A-Za-z._+!-]+$/.test(dir)) return null
        const path = join(root, dir, "bin", "yt-dlp")
        return (yield* Effect.promise(() => exists(path))) ? { version, path } : null
      })

      const makeVenv = Effect.fn("ReleaseInstaller.makeVenv")(function* () {
        yield* Effect.promise(() => mkdir(root, { recursive: true }))
        const name = `venv-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`
        const venv = join(root, name)
        yield* runProgram(config.python, ["-m", "venv", venv], config.installTimeoutMs)
        return { name, venv }
      })

      const latestIn = (venv: string, channel: "stable" | "nightly") =>
        pip(venv, ["index", "versions", ...(channel === "nightly" ? ["--pre"] : []), "yt-dlp"]).pipe(
          Effect.flatMap((output) => {
            const version = latestVersionOf(output, "yt-dlp")
            return version !== null && safeVersion(version)
              ? Effect.succeed(version)
              : Effect.fail(new ReleaseInstallFailed({ message: `the package index named no ${channel} yt-dlp release` }))
          })
        )

      const install = Effect.fn("ReleaseInstaller.install")(function* (choice: YtDlpReleaseChoice) {
        if (choice !== "stable" && choice !== "nightly") {
          if (!safeVersion(choice)) return yield* new ReleaseInstallFailed({ message: `not a version: ${choice}` })
          const found = yield* installed(choice)
          if (found !== null) return found
        }
        const { name, venv } = yield* makeVenv()
        const removeVenv = Effect.promise(() => rm(venv, { recursive: true, force: true }))
        return yield* Effect.gen(function* () {
          const version = choice === "stable" || choice === "nightly" ? yield* latestIn(venv, choice) : choice
          const found = yield* installed(version)
          if (found !== null) {
            yield* removeVenv
            return found
          }
          yield* pip(venv, [
            "install",
            "--quiet",
            ...(choice === "nightly" ? ["--pre"] : []),
            `yt-dlp==${version}`,
            `curl_cffi==${config.curlCffiVersion}`
          ])
          const pointer = join(root, `${version}.ready`)
          const staged = `${pointer}.${randomBytes(4).toString("hex")}`
          yield* Effect.promise(() => writeFile(staged, `${name}\n`).then(() => rename(staged, pointer)))
          return { version, path: join(venv, "bin", "yt-dlp") }
        }).pipe(Effect.onError(() => removeVenv))
      })

      return ReleaseInstaller.of({ install })
    })
  )
}
