"""What detection saved: runs, their pairs and signatures, and the queries over them."""
