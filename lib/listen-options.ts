/**
 * The options of subscriptions/listen: the event bus and how many listen
 * streams may be open, per connection and on the server. (Their resource URIs
 * are bounded by the resources/subscribe options, maxSubscriptionsPerConnection,
 * maxSubscriptionsTotal and maxSubscriptionUriLength.)
 */
import { ConfigError } from './errors.js';
import { positiveIntegerOption } from './option-checks.js';
import { InMemoryEventBus, isServerEventBus, type ServerEventBus } from './ports/event-bus.js';
import type { Logger } from './logger.js';

/** The server options of `subscriptions/listen` (the event bus and the listen bounds). */
export interface ListenOptions {
  /** Where server changes are published and listen streams hear them; default an InMemoryEventBus. */
  eventBus?: ServerEventBus | undefined;
  /** subscriptions/listen streams open at once across the server; default 1024. */
  maxListens?: number | undefined;
  /** subscriptions/listen streams one connection may hold open; default min(16, maxListens). */
  maxListensPerConnection?: number | undefined;
}

export interface ResolvedListenOptions {
  eventBus: ServerEventBus;
  maxListens: number;
  maxListensPerConnection: number;
}

export const LISTEN_OPTION_NAMES = ['eventBus', 'maxListens', 'maxListensPerConnection'] as const;

export function resolveListenOptions(options: ListenOptions, logger: Logger): ResolvedListenOptions {
  if (options.eventBus !== undefined && !isServerEventBus(options.eventBus)) {
    throw new ConfigError('eventBus', 'eventBus must have publish(event) and subscribe(listener) methods (and subscribeRemote, when given, a function)');
  }
  const maxListens = positiveIntegerOption('maxListens', options.maxListens, 1024);
  const maxListensPerConnection = positiveIntegerOption('maxListensPerConnection', options.maxListensPerConnection, Math.min(16, maxListens));
  if (maxListensPerConnection > maxListens) {
    throw new ConfigError(
      'maxListensPerConnection',
      `maxListensPerConnection (${maxListensPerConnection}) may not exceed maxListens (${maxListens})`,
    );
  }
  return { eventBus: options.eventBus ?? new InMemoryEventBus({ logger }), maxListens, maxListensPerConnection };
}
