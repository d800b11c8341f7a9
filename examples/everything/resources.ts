/**
 * The fixture's resources: a static text and a static binary resource, one
 * a client may subscribe to, and a template whose `{id}` is substituted into
 * the JSON it returns (with a completer for `id`).
 */
import type { Registry } from '../../lib/index.js';
import { RED_PIXEL_PNG_BASE64 } from './media.js';

export const TEMPLATE_IDS = ['123', '456', '789'];

export function registerResources(registry: Registry): void {
  registry.registerResource({
    uri: 'test://static-text',
    name: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
    read: () => 'This is the content of the static text resource.',
  });

  registry.registerResource({
    uri: 'test://static-binary',
    name: 'Static Binary Resource',
    description: 'A static binary resource (a 1x1 red PNG) for testing',
    mimeType: 'image/png',
    read: () => ({ blob: RED_PIXEL_PNG_BASE64 }),
  });

  registry.registerResource({
    uri: 'test://watched-resource',
    name: 'Watched Resource',
    description: 'A resource a client may subscribe to',
    mimeType: 'text/plain',
    read: () => 'Watched resource content',
  });

  registry.registerResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'Resource Template',
    description: 'A resource template whose id is substituted into the data',
    mimeType: 'application/json',
    read: (_uri, { id = '' }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
    complete: { id: (value) => TEMPLATE_IDS.filter((id) => id.startsWith(value)) },
  });
}
