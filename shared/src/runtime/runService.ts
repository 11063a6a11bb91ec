// Runs a service's layer as the process: a stop by SIGTERM/SIGINT is a clean exit (0), any failure exits 1.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Exit, Layer } from "effect"
import type { Runtime } from "effect"

/** Supervisors (systemd, Kubernetes, compose) read a non-zero code after a requested stop as a crash. */
export const stopIsSuccess: Runtime.Teardown = (exit, onExit) => onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)

export const runService = <E>(layer: Layer.Layer<never, E>): void => NodeRuntime.runMain(Layer.launch(layer), { teardown: stopIsSuccess })
