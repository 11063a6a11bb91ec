// The setup most end-to-end files share: a local media server, a service stack allowed to reach it and API keys,
// started before the file's tests and closed after them (after the file's own afterAll hooks).
import { afterAll, beforeAll } from "vitest"
import { type MediaServer, startMediaServer } from "../support/MediaServer.ts"
import { type ServiceStack, type ServiceStackOptions, startServiceStack } from "../support/ServiceStack.ts"
import { connectInspector, type StackInspector } from "../support/StackInspector.ts"
import { type ApiResponse, apiFor, describeResponse } from "./ApiClient.ts"

export interface MediaStackOptions {
  /** Bytes per second the media server sends (its default otherwise). */
  readonly throttleBytesPerSecond?: number
  /** The stack's options, given the started media server; EGRESS_ALLOW is the media server unless `env` sets it. */
  readonly stack?: (media: MediaServer) => ServiceStackOptions
  /** How many API keys to provision, each in a project of its own (1 unless set). */
  readonly keys?: number
  /** Connect a StackInspector to the stack's NATS. */
  readonly inspect?: boolean
  /** How long starting may take (the project's hookTimeout unless set). */
  readonly startTimeoutMs?: number
}

export interface MediaStack {
  readonly media: MediaServer
  readonly stack: ServiceStack
  /** The first provisioned key. */
  readonly key: string
  /** The provisioned key at `index` (0 is `key`). */
  readonly keyAt: (index: number) => string
  /** The project of the first key. */
  readonly projectId: string
  /** The API client with the first key. */
  readonly api: ReturnType<typeof apiFor>
  readonly inspector: StackInspector
  /** The response and the stack's logs, for assertion messages. */
  readonly context: (response: ApiResponse) => string
}

const started = <A>(value: A | undefined, what: string): A => {
  if (value === undefined) throw new Error(`${what} is not started: use it in a test or a hook`)
  return value
}

/** Registers the file's beforeAll and afterAll hooks; the returned fields are readable once beforeAll ran. */
export const useMediaStack = (options: MediaStackOptions = {}): MediaStack => {
  let media: MediaServer | undefined
  let stack: ServiceStack | undefined
  let provisioned: ReadonlyArray<{ readonly projectId: string; readonly key: string }> = []
  let inspector: StackInspector | undefined

  beforeAll(async () => {
    media = await startMediaServer(
      options.throttleBytesPerSecond === undefined ? undefined : { throttleBytesPerSecond: options.throttleBytesPerSecond }
    )
    const stackOptions = options.stack?.(media) ?? {}
    stack = await startServiceStack({ ...stackOptions, env: { EGRESS_ALLOW: media.hostPort, ...stackOptions.env } })
    const keys: Array<{ readonly projectId: string; readonly key: string }> = []
    for (let i = 0; i < (options.keys ?? 1); i++) keys.push(await stack.provisionKey())
    provisioned = keys
    if (options.inspect === true) inspector = await connectInspector(stack.nats.url)
  }, options.startTimeoutMs)

  const provisionedAt = (index: number) => started(provisioned[index], `key ${index}`)
  const keyAt = (index: number) => provisionedAt(index).key

  afterAll(async () => {
    await inspector?.close()
    await stack?.close()
    await media?.close()
  })

  return {
    get media() {
      return started(media, "the media server")
    },
    get stack() {
      return started(stack, "the service stack")
    },
    get key() {
      return keyAt(0)
    },
    keyAt,
    get projectId() {
      return provisionedAt(0).projectId
    },
    get api() {
      return apiFor(started(stack, "the service stack").baseUrl, keyAt(0))
    },
    get inspector() {
      return started(inspector, "the stack inspector")
    },
    context: (response) => `${describeResponse(response)}\n${started(stack, "the service stack").logs()}`
  }
}
