/**
 * Baseline for the latency-bound figure: the least a client can do. Sends N
 * rate-limit-policy creates with P concurrent undici requests (one connection
 * each) and exits; no config, no plan, no state. Run as its own process by
 * bench/apply-scenarios.mjs, so its wall time includes Node's start-up too.
 *
 * Usage: node bench/raw-client.mjs BASE_URL N P   (token in TENANTFORM_TOKEN)
 */
import { Agent, request } from 'undici';

const [baseUrl, n, p] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const agent = new Agent({ connections: p });
const headers = {
  authorization: `Bearer ${process.env.TENANTFORM_TOKEN}`,
  'content-type': 'application/json',
};
let next = 0;

async function worker() {
  while (next < n) {
    const i = next++;
    const body = JSON.stringify({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: `client_id:raw-${i}`,
      configuration: { action: 'allow' },
    });
    const res = await request(`${baseUrl}/rate-limit-policies`, {
      dispatcher: agent,
      method: 'POST',
      headers,
      body,
    });
    await res.body.text();
    if (res.statusCode >= 300) throw new Error(`raw client: status ${res.statusCode}`);
  }
}

await Promise.all(Array.from({ length: p }, worker));
await agent.close();
