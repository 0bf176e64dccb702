"""The program that runs on the board's Raspberry Pi: rules, sensing, referee, lights."""
