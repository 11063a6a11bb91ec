// Settings of yt-dlp release management: where releases are installed, the pinned curl_cffi, canaries, auto-update.
import { join } from "node:path"
import { Config, Context, Effect, Layer } from "effect"

export type AutoUpdate = "stable" | "nightly" | "off"

export interface ReleaseConfigShape {
  /** One venv per installed release under here (DATA_DIR/yt-dlp by default). */
  readonly releasesDir: string
  /** The Python that creates each release's venv; pip inside it reads the standard PIP_* settings and pip.conf. */
  readonly python: string
  /** curl_cffi installed beside every release, so --impersonate works. */
  readonly curlCffiVersion: string
  /** Pages every new release must resolve (through the egress proxy) before it is used; empty: the local check only. */
  readonly canaryUrls: ReadonlyArray<string>
  /** The channel an extractor follows while the operator has chosen nothing; "off" keeps the built-in release. */
  readonly autoUpdate: AutoUpdate
  /** How often a channel (stable, nightly) is looked up again for a newer release. */
  readonly autoUpdateIntervalMs: number
  /** How often the fleet's choice is read. */
  readonly pollMs: number
  readonly installTimeoutMs: number
  readonly checkTimeoutMs: number
}

const seconds = (name: string, fallback: number) =>
  Config.Number(name).pipe(
    Config.withDefault(fallback),
    Config.map((s) => Math.round(s * 1000))
  )

export class ReleaseConfig extends Context.Service<ReleaseConfig, ReleaseConfigShape>()("mds/extractor/ReleaseConfig") {
  static readonly config = Config.all({
    releasesDir: Config.String("YT_DLP_RELEASES_DIR").pipe(
      Config.orElse(() =>
        Config.String("DATA_DIR").pipe(
          Config.withDefault("./.data"),
          Config.map((dir) => join(dir, "yt-dlp"))
        )
      )
    ),
    python: Config.String("YT_DLP_PYTHON").pipe(Config.withDefault("python3")),
    curlCffiVersion: Config.String("YT_DLP_CURL_CFFI_VERSION").pipe(Config.withDefault("0.16.3")),
    canaryUrls: Config.String("YT_DLP_CANARY_URLS").pipe(
      Config.withDefault(""),
      Config.map((list) => list.split(/[\s,]+/).filter((url) => url !== ""))
    ),
    autoUpdate: Config.Literals(["stable", "nightly", "off"], "YT_DLP_AUTO_UPDATE").pipe(Config.withDefault("off" as const)),
    autoUpdateIntervalMs: seconds("YT_DLP_AUTO_UPDATE_INTERVAL_SECONDS", 24 * 3600),
    pollMs: seconds("YT_DLP_RELEASE_POLL_SECONDS", 5),
    installTimeoutMs: seconds("YT_DLP_INSTALL_TIMEOUT_SECONDS", 600),
    checkTimeoutMs: seconds("YT_DLP_CHECK_TIMEOUT_SECONDS", 120)
  })

  static readonly layer = Layer.effect(ReleaseConfig, Effect.map(ReleaseConfig.config, ReleaseConfig.of))
}
