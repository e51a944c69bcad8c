package outputs
