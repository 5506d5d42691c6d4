/* rocjit - the command-line tool (being written). */
int main(void)
{
	return 2;
}
