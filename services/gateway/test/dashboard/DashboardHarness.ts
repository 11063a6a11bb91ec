// An in-process gateway plus the account and subscription projections on a throwaway nats-server, and dashboard clients over fastify inject.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startListProjections } from "../AggregatorProjections.ts"
import { type GatewayInstance, gatewayEnv, startGateway } from "../GatewayHarness.ts"
import { type NatsServer, startNatsServer } from "../../../../test/support/NatsServer.ts"
import { type DashboardClient, dashboardClient, type Transport } from "../../../../test/support/DashboardClient.ts"

export const ORIGIN = "http://gateway.test"

export interface DashboardHarness {
  readonly nats: NatsServer
  readonly gateway: GatewayInstance
  client(): DashboardClient
  readonly transport: Transport
  close(): Promise<void>
}

/** fastify's inject in the shape of a fetch response, so one client serves in-process and real servers. */
export const injectTransport =
  (gateway: GatewayInstance): Transport =>
  async (request) => {
    const response = await gateway.app.inject({
      method: request.method as "GET" | "POST",
      url: request.path,
      headers: { host: new URL(ORIGIN).host, ...request.headers },
      ...(request.body === undefined ? {} : { payload: request.body })
    })
    const headers = new Headers()
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue
      for (const item of Array.isArray(value) ? value : [String(value)]) headers.append(name, item)
    }
    return { status: response.statusCode, headers, body: response.body }
  }

export const startDashboardHarness = async (extraEnv: Record<string, string> = {}): Promise<DashboardHarness> => {
  const nats = await startNatsServer()
  const dataDir = await mkdtemp(join(tmpdir(), "mds-dashboard-"))
  const env = { ...gatewayEnv(nats, dataDir), ...extraEnv }
  const gateway = await startGateway(env)
  // The aggregator's account and subscription projections, so lists in the dashboard fill as they do in production.
  const projections = await startListProjections(env)
  const transport = injectTransport(gateway)
  return {
    nats,
    gateway,
    transport,
    client: () => dashboardClient(transport, ORIGIN),
    close: async () => {
      await projections.dispose()
      await gateway.close()
      await nats.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
}
