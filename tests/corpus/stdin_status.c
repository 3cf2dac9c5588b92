/* SPDX-License-Identifier: MIT */
/* Reads stdin, classifies every character, counts lines and words, and
 * exits with a non-zero status derived from the input. */
#include <stdio.h>

int main(void)
{
	long lines = 0, words = 0, digits = 0, alpha = 0, punct = 0, other = 0;
	int in_word = 0, c;
	while ((c = getchar()) != EOF) {
		switch (c) {
		case '\n':
			lines++;
			/* fall through */
		case ' ':
		case '\t':
			in_word = 0;
			continue;
		case '0' ... '9':
			digits++;
			break;
		case 'a' ... 'z':
		case 'A' ... 'Z':
			alpha++;
			break;
		case '!':
		case ',':
		case '.':
		case '?':
		case ';':
			punct++;
			break;
		default:
			other++;
			break;
		}
		if (!in_word) {
			words++;
			in_word = 1;
		}
	}
	printf("lines=%ld words=%ld digits=%ld alpha=%ld punct=%ld other=%ld\n", lines, words,
	       digits, alpha, punct, other);
	return lines == 0 ? 1 : (int)(2 + lines % 5);
}
