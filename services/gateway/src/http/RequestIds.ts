// Request ids: `req_` and 24 hex digits (96 random bits) from the pooled random bytes.
import { takeRandomBytes } from "@mds/shared/ids/RandomPool"

export const newRequestId = (): string => `req_${takeRandomBytes(12).toString("hex")}`
