// Entry point of the `trails` command. Filled in by the CLI module.
int main() { return 0; }
