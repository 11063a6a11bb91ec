// The one way the extractor starts yt-dlp, ffmpeg and ffprobe: each run in its own network namespace whose only way out is its egress proxy.
import { type ChildProcess, type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { Config, Context, Effect, Layer, Schema } from "effect"
import { YtDlpPath } from "../ExtractorConfig.ts"
import { childEnvironment } from "./ChildEnvironment.ts"
import { egressSocketPath } from "./OpenProxies.ts"

/**
 * - `namespace` (default): every run gets a fresh network namespace (and PID namespace, so the whole process tree dies
 *   with the tool) with loopback only; a relay inside bridges the proxy's address to the proxy's Unix socket.
 * - `network-policy`: the operator confines the extractor's egress outside the process (a Kubernetes NetworkPolicy, a
 *   firewall); runs start directly, with the application-layer checks only.
 */
export const ConfinementMode = Schema.Literals(["namespace", "network-policy"])
export type ConfinementMode = typeof ConfinementMode.Type

export class ConfinementUnavailable extends Schema.TaggedError<ConfinementUnavailable>()("ConfinementUnavailable", {
  message: Schema.String
}) {}

export interface ConfinedSpawnOptions {
  readonly cwd?: string | undefined
  /** The run's egress proxy (an open `EgressProxy`'s url), or null: the run gets no network at all. */
  readonly proxyUrl: string | null
  /** A yt-dlp run that impersonates no browser: curl_cffi is kept out of it (ChildEnvironment.ts). */
  readonly withoutImpersonation?: boolean
}

/** How every run is confined; the warm runner confines the runs it forks the same way (warm/zygote.py). */
export type ConfinementKind = { readonly _tag: "namespace"; readonly variant: NamespaceVariant } | { readonly _tag: "network-policy" }

export interface ConfinementShape {
  /** How runs are confined, for the startup log: e.g. "network namespace (user namespace, unprivileged)". */
  readonly description: string
  readonly kind: ConfinementKind
  /**
   * Same shape as node's `spawn`; throws when `proxyUrl` is not a proxy this process has open. The child leads its own
   * process group: stop it with `killRunTree`, never `child.kill` (which reaches the tool only).
   */
  spawn(command: string, args: ReadonlyArray<string>, options: ConfinedSpawnOptions): ChildProcessWithoutNullStreams
}

const LAUNCHER = join(import.meta.dirname, "confine.py")

/**
 * Least privilege first: an unprivileged user namespace needs no capability; network and PID namespaces alone need
 * CAP_SYS_ADMIN. `variant` is confine.py's (and the warm runner's) name for it.
 */
const NAMESPACE_VARIANTS = [
  { variant: "user", description: "user namespace, unprivileged" },
  { variant: "sysadmin", description: "CAP_SYS_ADMIN" }
] as const

export type NamespaceVariant = (typeof NAMESPACE_VARIANTS)[number]["variant"]

/** The relay runs on the yt-dlp venv's own python when YT_DLP_PATH points into a venv, else python3 from PATH. */
const pythonFor = (ytDlpPath: string) => {
  const sibling = join(dirname(ytDlpPath), "python3")
  return ytDlpPath.includes("/") && existsSync(sibling) ? sibling : "python3"
}

const tryVariant = (variant: NamespaceVariant, python: string) =>
  new Promise<string | null>((resolve) => {
    execFile(python, ["-I", "-S", LAUNCHER, variant, "-", "0", "true"], { timeout: 10_000 }, (error, _stdout, stderr) =>
      resolve(error === null ? null : (stderr.trim() || error.message).slice(0, 300))
    )
  })

const whyUnavailable = (attempts: ReadonlyArray<string>) =>
  "EGRESS_CONFINEMENT=namespace: this host cannot create a network namespace for yt-dlp/ffmpeg runs " +
  `(${attempts.join("; ")}). Allow unprivileged user namespaces (Docker: a seccomp profile that permits unshare ` +
  "with CLONE_NEWUSER|CLONE_NEWNET|CLONE_NEWPID; see docs/security.md), or grant CAP_SYS_ADMIN, or set " +
  "EGRESS_CONFINEMENT=network-policy if a network policy already limits this process's egress. The extractor does not " +
  "start without one of them."

/**
 * Kills a run and every process it started (yt-dlp's ffmpeg, a relay): runs are spawned detached, so each leads its
 * own process group, and the whole group gets SIGKILL. The group outlives its leader while a member lives, so this
 * also reaches an ffmpeg whose yt-dlp already exited. The namespace mode's PID namespace would take them down anyway;
 * the network-policy mode has nothing else.
 */
export const killRunTree = (child: ChildProcess): void => {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, "SIGKILL")
  } catch {
    // The group is gone already (ESRCH): only the leader may still need reaping.
    child.kill("SIGKILL")
  }
}

/**
 * A run's way out and its environment, the same for every way a run starts: the egress proxy's Unix socket and the
 * loopback port its URL names (null: no network at all), and the allow-listed environment. Throws for a proxy this
 * process does not have open.
 */
export const runSetup = (command: string, options: ConfinedSpawnOptions) => {
  const socketPath = options.proxyUrl === null ? null : egressSocketPath(options.proxyUrl)
  if (socketPath === undefined) throw new Error(`refusing to start ${command}: ${options.proxyUrl} is not an open egress proxy`)
  const port = options.proxyUrl === null ? 0 : Number(new URL(options.proxyUrl).port)
  // The children inherit a filtered copy of the process environment: not configuration, so not read through Config.
  const env = childEnvironment(process.env, options.proxyUrl, options.withoutImpersonation === true)
  return { socketPath, port, env }
}

const makeSpawn =
  (launcher: { readonly python: string; readonly variant: NamespaceVariant } | null) =>
  (command: string, args: ReadonlyArray<string>, options: ConfinedSpawnOptions): ChildProcessWithoutNullStreams => {
    const { socketPath, port, env } = runSetup(command, options)
    // Detached: the run leads its own process group, which killRunTree ends as a whole.
    if (launcher === null) return spawn(command, [...args], { cwd: options.cwd, env, detached: true })
    return spawn(launcher.python, ["-I", "-S", LAUNCHER, launcher.variant, socketPath ?? "-", String(port), command, ...args], {
      cwd: options.cwd,
      env,
      detached: true
    })
  }

export class Confinement extends Context.Service<Confinement, ConfinementShape>()("mds/extractor/Confinement") {
  static readonly config = Config.all({
    mode: Config.Literals(["namespace", "network-policy"], "EGRESS_CONFINEMENT").pipe(Config.withDefault("namespace" as const)),
    ytDlpPath: YtDlpPath
  })

  /** Fails (and the extractor does not start) when the chosen confinement cannot be had on this host. */
  static readonly layer = Layer.effect(
    Confinement,
    Effect.gen(function* () {
      const { mode, ytDlpPath } = yield* Confinement.config
      if (mode === "network-policy") {
        yield* Effect.logWarning(
          "EGRESS_CONFINEMENT=network-policy: media tools run without a network namespace; their egress must be limited outside this process"
        )
        return Confinement.of({
          description: "network policy (outside the process)",
          kind: { _tag: "network-policy" },
          spawn: makeSpawn(null)
        })
      }
      const python = pythonFor(ytDlpPath)
      const attempts: Array<string> = []
      for (const { variant, description: privilege } of NAMESPACE_VARIANTS) {
        const failure = yield* Effect.promise(() => tryVariant(variant, python))
        if (failure === null) {
          const description = `network namespace (${privilege})`
          yield* Effect.logInfo(`media tools confined: ${description}`)
          return Confinement.of({ description, kind: { _tag: "namespace", variant }, spawn: makeSpawn({ python, variant }) })
        }
        attempts.push(`${variant} namespaces: ${failure}`)
      }
      return yield* new ConfinementUnavailable({ message: whyUnavailable(attempts) })
    })
  )
}
