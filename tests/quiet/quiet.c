/* The smallest C file tests/quiet builds twice (a library and a program). */
int main(void) { return 0; }
