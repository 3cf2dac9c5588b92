/* SPDX-License-Identifier: MIT */
/* wet_slice.c — a program whose WET slices are known by hand
 * (tests/e2e/wet-query.sh): every statement goes through a volatile
 * global, so each line is a load and a store the WET records whatever the
 * optimizer does, and the dependences are the source's. */
volatile int a, b, c, d, e;

int main(int argc, char **argv)
{
	(void)argv;
	a = argc;	/* SLICE:s1 */
	b = 7;		/* SLICE:s2 */
	c = a + 1;	/* SLICE:s3 */
	d = b * 2;	/* SLICE:s4 */
	e = c + 5;	/* SLICE:s5 */
	return e != 7;	/* SLICE:s6 */
}
