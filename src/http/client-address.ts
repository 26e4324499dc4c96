import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/**
 * The client's address as Fastify's `request.ip` reads it under the same TRUST_PROXY setting, for
 * requests answered before Fastify (the public fast path), so their log lines name the same
 * address a routed request's would. The trust rules are Fastify's: a string is a comma-separated
 * list of addresses and CIDRs, `true` trusts every hop, `false` none.
 */
export function clientAddress(trustProxy: boolean | string): (request: IncomingMessage) => string {
  if (trustProxy === false) return (request) => request.socket.remoteAddress ?? '';
  const trust = trustProxy === true ? () => true : proxyAddr.compile(trustProxy.split(',').map((value) => value.trim()));
  return (request) => {
    const addresses = proxyAddr.all(request, trust);
    return addresses[addresses.length - 1] ?? '';
  };
}
