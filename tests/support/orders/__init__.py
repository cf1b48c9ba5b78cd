"""A measurement added as docs/architecture.md's recipe "Add a measurement" says, by a test:
the clinician's orders and those the environment could not carry out. Three files in one
slice (this face, ``orders.py``, ``orders_section.py``); registering it is one entry in
``measures.CAPABILITIES`` (``tests/support/registered.py`` makes it in the process that runs
the command)."""

from tests.support.orders.orders import ClinicianOrders, clinician_orders
from tests.support.orders.orders_section import CLINICIAN_ORDERS

__all__ = ["CLINICIAN_ORDERS", "ClinicianOrders", "clinician_orders"]
