import type { NextConfig } from 'next'

// Next's anonymous telemetry off for this example, on every platform (`next build` reads this after the config).
process.env.NEXT_TELEMETRY_DISABLED ??= '1'

const nextConfig: NextConfig = {}

export default nextConfig
