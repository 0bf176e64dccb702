"""The simulated board: fakes of the lowest hardware boundary and a physical world above them."""
