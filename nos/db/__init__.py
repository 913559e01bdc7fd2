"""The one Redis access layer, byte-compatible with swss-common.

Everything that talks to the switch's Redis goes through here: ``DBConnector`` (ids and separators
from database_config.json), ``Table``, ``ProducerStateTable`` / ``ConsumerStateTable`` (APPL_DB
transport), ``SubscriberStateTable`` (keyspace notifications), ``NotificationProducer`` /
``NotificationConsumer``, ``ConfigDBConnector`` and ``Select``. The layer is synchronous and
single-threaded like swss-common; Redis errors surface as ``nos.db.errors.DbError``.
"""

from nos.db.configdb import ConfigDBConnector, RowChange, raw_to_typed, typed_to_raw
from nos.db.connector import Databases, DBConnector
from nos.db.consumer_state import ConsumerStateTable
from nos.db.errors import DbConnectionError, DbError, DbProtocolError
from nos.db.keyops import DEL_COMMAND, SET_COMMAND, KeyOpFieldsValues
from nos.db.notification import Notification, NotificationConsumer, NotificationProducer
from nos.db.producer_state import ProducerStateTable
from nos.db.select import Select, Selectable
from nos.db.subscriber_state import SubscriberStateTable, TableKeys
from nos.db.table import Table

__all__ = [
    "ConfigDBConnector", "ConsumerStateTable", "DBConnector", "Databases", "DbConnectionError", "DbError",
    "DbProtocolError", "DEL_COMMAND", "KeyOpFieldsValues", "Notification", "NotificationConsumer",
    "NotificationProducer", "ProducerStateTable", "RowChange", "SET_COMMAND", "Select", "Selectable",
    "SubscriberStateTable", "Table", "TableKeys", "raw_to_typed", "typed_to_raw",
]
