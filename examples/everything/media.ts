/**
 * The fixture's binary media, written out here rather than read from disk so
 * the server needs no files: a 1x1 red PNG and a 1 ms WAV of silence, both
 * base64 (the encoding MCP carries them in).
 */

/** 1x1 pixel, 8-bit RGB (255, 0, 0), one IDAT; 69 bytes. */
export const RED_PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** RIFF/WAVE, PCM mono 8 kHz 8-bit, 8 samples of silence (0x80); 52 bytes. */
export const SILENT_WAV_BASE64 = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';
