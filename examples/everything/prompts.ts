/**
 * The fixture's prompts: a plain one, one with two required arguments (and a
 * completer for the first), one embedding a resource, one with an image.
 */
import { embeddedResource, image, text, type Registry } from '../../lib/index.js';
import { RED_PIXEL_PNG_BASE64 } from './media.js';

export const ARG1_SUGGESTIONS = ['paris', 'park', 'party', 'test-value-1', 'test-value-2'];

export function registerPrompts(registry: Registry): void {
  registry.registerPrompt({
    name: 'test_simple_prompt',
    description: 'A simple prompt without arguments',
    get: () => 'This is a simple prompt for testing.',
  });

  registry.registerPrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    complete: { arg1: (value) => ARG1_SUGGESTIONS.filter((s) => s.startsWith(value)) },
  });

  registry.registerPrompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds the resource it is given',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    get: ({ resourceUri = '' }) => [
      {
        role: 'user',
        content: embeddedResource({ uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' }),
      },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  });

  registry.registerPrompt({
    name: 'test_prompt_with_image',
    description: 'A prompt with an image',
    get: () => [
      { role: 'user', content: image(RED_PIXEL_PNG_BASE64, 'image/png') },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  });
}
